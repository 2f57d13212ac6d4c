package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A {@link HistoryStore} in plain maps: for tests, the backfill and the test kit. Not thread-safe. */
public final class InMemoryHistoryStore implements HistoryStore {
  private final Map<BusinessKey, KeyState> current = new HashMap<>();
  private final Map<BusinessKey, TreeMap<Sequence, StoredEvent>> events = new HashMap<>();
  private long reads;
  private long writes;

  @Override
  public KeyState current(BusinessKey key) {
    reads++;
    return current.get(key);
  }

  @Override
  public void putCurrent(BusinessKey key, KeyState state) {
    writes++;
    current.put(key, state);
  }

  @Override
  public StoredEvent eventBefore(BusinessKey key, Sequence sequence) {
    reads++;
    TreeMap<Sequence, StoredEvent> m = events.get(key);
    if (m == null) {
      return null;
    }
    Map.Entry<Sequence, StoredEvent> e = m.lowerEntry(sequence);
    return e == null ? null : e.getValue();
  }

  @Override
  public List<StoredEvent> eventsFrom(BusinessKey key, Sequence from) {
    reads++;
    TreeMap<Sequence, StoredEvent> m = events.get(key);
    return m == null ? List.of() : new ArrayList<>(m.tailMap(from, true).values());
  }

  @Override
  public void putEvent(BusinessKey key, StoredEvent event) {
    writes++;
    events.computeIfAbsent(key, k -> new TreeMap<>()).put(event.sequence(), event);
  }

  /** Deletes stored events of {@code key} before {@code sequence}: what pruning does. */
  public void removeEventsBefore(BusinessKey key, Sequence sequence) {
    TreeMap<Sequence, StoredEvent> m = events.get(key);
    if (m != null) {
      m.headMap(sequence, false).clear();
    }
  }

  /**
   * Applies the pruning rule of {@link IncrementalHistory#pruneCutoff} to every key: deletes stored events whose
   * first sequence part is below the key's cutoff, except the newest of them (the re-fold anchor).
   *
   * @return how many events were deleted
   */
  public long prune(IncrementalHistory engine) {
    long pruned = 0;
    for (Map.Entry<BusinessKey, TreeMap<Sequence, StoredEvent>> e : events.entrySet()) {
      KeyState state = current.get(e.getKey());
      long cutoff = state == null ? Long.MIN_VALUE : engine.pruneCutoff(state);
      if (cutoff == Long.MIN_VALUE) {
        continue;
      }
      TreeMap<Sequence, StoredEvent> m = e.getValue();
      Map.Entry<Sequence, StoredEvent> anchor = null;
      for (Map.Entry<Sequence, StoredEvent> ev : m.entrySet()) {
        if (ev.getKey().first() >= cutoff) {
          break;
        }
        anchor = ev;
      }
      if (anchor != null) {
        Map<Sequence, StoredEvent> doomed = m.headMap(anchor.getKey(), false);
        pruned += doomed.size();
        doomed.clear();
      }
    }
    return pruned;
  }

  public int storedEventCount(BusinessKey key) {
    TreeMap<Sequence, StoredEvent> m = events.get(key);
    return m == null ? 0 : m.size();
  }

  /** Store calls so far, for tests of the fast path's constant cost. */
  public long reads() {
    return reads;
  }

  public long writes() {
    return writes;
  }
}
