package io.dimstream.query;

import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.topology.LiveStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@link LiveQueries} over a running topology's state stores, with the table behind them: the current version
 * comes from the key's newest stored event (fresher than the table, which lags by up to one compaction interval); a
 * key's history and as-of answers come from its stored events (within the lateness horizon) and, for anything
 * older, from the table. A key owned by another instance is answered there ({@link #ownerOf}).
 */
public final class StreamsLiveQueries implements LiveQueries {
  private final DimensionSpec spec;
  private final LiveQueries table;
  private volatile HostInfo self;
  private volatile LiveStores stores;

  /** @param table the fallback for what the stores no longer hold (and while they are not ready) */
  public StreamsLiveQueries(DimensionSpec spec, LiveQueries table) {
    this.spec = spec;
    this.table = table;
  }

  /**
   * Connects the running topology; until then every answer comes from the table.
   *
   * @param self this instance's {@code application.server}, so its own keys are not forwarded to itself
   */
  public void attach(LiveStores liveStores, HostInfo self) {
    this.self = self;
    this.stores = liveStores;
  }

  @Override
  public DimensionSpec spec() {
    return spec;
  }

  @Override
  public Optional<InstanceAddress> ownerOf(BusinessKey key) {
    LiveStores s = stores;
    if (s == null) {
      return Optional.empty();
    }
    try {
      return s.ownerOf(key).filter(h -> !h.equals(self) && h.port() > 0)
          .map(h -> new InstanceAddress(h.host(), h.port()));
    } catch (RuntimeException e) {
      return Optional.empty(); // metadata not ready (rebalance): answer here, from what this instance has
    }
  }

  @Override
  public Optional<Version> current(BusinessKey key) {
    LiveStores s = stores;
    if (s != null) {
      try {
        Optional<KeyState> state = s.keyState(key);
        if (state.isPresent()) {
          // an scd1 soft-deleted row is the state but not current
          return Optional.ofNullable(state.get().open()).filter(Version::isCurrent);
        }
      } catch (RuntimeException e) {
        // stores migrating: fall back to the table
      }
    }
    return table.current(key);
  }

  @Override
  public List<Version> history(BusinessKey key) {
    List<Version> live = liveVersions(key);
    if (live.isEmpty()) {
      return table.history(key);
    }
    Sequence liveFrom = live.get(0).validFrom();
    List<Version> out = new ArrayList<>();
    for (Version v : table.history(key)) {
      if (v.validFrom().isBefore(liveFrom)) {
        out.add(v);
      }
    }
    out.addAll(live);
    return out;
  }

  @Override
  public Optional<Version> asOf(BusinessKey key, long at) {
    List<Version> live = liveVersions(key);
    if (live.isEmpty() || at < live.get(0).validFrom().first()) {
      return table.asOf(key, at);
    }
    return live.stream()
        .filter(v -> v.validAt(at))
        .findFirst();
  }

  /** The versions the stored events describe, from the version open at the oldest stored event onward. */
  private List<Version> liveVersions(BusinessKey key) {
    LiveStores s = stores;
    if (s == null) {
      return List.of();
    }
    List<StoredEvent> events;
    try {
      events = s.events(key);
    } catch (RuntimeException e) {
      return List.of();
    }
    if (events.isEmpty()) {
      return List.of();
    }
    StoredEvent oldest = events.get(0);
    List<StoredEvent> rest = events.subList(1, events.size());
    Map<Sequence, Version> versions = IncrementalHistory.versionsOf(oldest.openAfter(), rest);
    List<Version> out = new ArrayList<>(versions.values());
    out.sort(BusinessKeys.VERSION_ORDER);
    return out;
  }
}
