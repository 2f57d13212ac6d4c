package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Applies one event at a time to a key's stored state and says which version records to emit, so that the
 * records emitted so far always describe exactly {@link Scd2Fold#fold} of the events seen so far.
 *
 * <ul>
 *   <li>Fast path, an event newer than the key's newest: one fold step against the current-row state;
 *       one read and two writes, whatever the length of the key's history.</li>
 *   <li>Late path, an event at or before the key's newest sequence: the fold is replayed from the stored
 *       state just before the event over the affected suffix only, and the emitted changes are the difference
 *       between the suffix's versions before and after (upserts for new or changed versions, retractions for
 *       versions that vanished).</li>
 *   <li>An event older than the key's newest sequence minus the lateness horizon is not applied
 *       ({@link ApplyResult.TooLate}).</li>
 * </ul>
 *
 * <p>With {@code history: scd1} the same engine keeps one version per key (see {@link FoldStep}); without
 * {@code soft_delete}, a version left closed is emitted as a retraction, so the table holds open rows only.
 */
public final class IncrementalHistory {
  private final FoldStep step;
  private final long horizon;
  private final HistoryMode mode;

  public IncrementalHistory(DimensionSpec spec) {
    this(spec.trackedMask(), spec.latenessHorizon(), spec.history(), Derivation.NONE);
  }

  /** @param horizon in the units of the first sequence part; {@link Long#MAX_VALUE} means unbounded */
  public IncrementalHistory(boolean[] tracked, long horizon) {
    this(tracked, horizon, HistoryMode.SCD2, Derivation.NONE);
  }

  /** As {@link #IncrementalHistory(boolean[], long)}, for a table of the given history mode. */
  public IncrementalHistory(boolean[] tracked, long horizon, HistoryMode mode) {
    this(tracked, horizon, mode, Derivation.NONE);
  }

  /** As {@link #IncrementalHistory(boolean[], long)}, deriving attributes at every fold step. */
  public IncrementalHistory(boolean[] tracked, long horizon, Derivation derivation) {
    this(tracked, horizon, HistoryMode.SCD2, derivation);
  }

  /**
   * As {@link #IncrementalHistory(boolean[], long)}, for a table of the given history mode, deriving attributes at
   * every fold step (on the fast path and in a re-fold alike).
   */
  public IncrementalHistory(boolean[] tracked, long horizon, HistoryMode mode, Derivation derivation) {
    this.step = new FoldStep(tracked, mode, derivation);
    this.horizon = horizon;
    this.mode = mode;
  }

  public ApplyResult apply(HistoryStore store, ChangeEvent event) {
    BusinessKey key = event.key();
    KeyState state = store.current(key);
    if (state == null || event.sequence().isAfter(state.lastSequence())) {
      FoldStep.Outcome o = step.apply(state == null ? null : state.open(), event);
      store.putEvent(key, new StoredEvent(event, o.open()));
      store.putCurrent(key, new KeyState(event.sequence(), o.open()));
      return new ApplyResult.Applied(Scd1Rows.changes(mode, o.changes()), false);
    }
    if (isBeyondHorizon(event.sequence(), state.lastSequence())) {
      return new ApplyResult.TooLate(state.lastSequence().first(), horizon);
    }
    return new ApplyResult.Applied(Scd1Rows.changes(mode, refold(store, state, event)), true);
  }

  /** Whether an event at {@code sequence} is too old for a key whose newest event is at {@code newest}. */
  public boolean isBeyondHorizon(Sequence sequence, Sequence newest) {
    if (horizon == Long.MAX_VALUE) {
      return false;
    }
    long cutoff = newest.first() - horizon;
    if (newest.first() < 0 && cutoff > newest.first()) {
      return false; // underflow: nothing is that old
    }
    return sequence.first() < cutoff;
  }

  /**
   * The pruning rule the event store follows: events with a first sequence part below this cutoff may be
   * deleted, except the newest of them, which stays as the anchor a late re-fold starts from. Returns
   * {@link Long#MIN_VALUE} when nothing may be pruned.
   */
  public long pruneCutoff(KeyState state) {
    if (horizon == Long.MAX_VALUE) {
      return Long.MIN_VALUE;
    }
    long newest = state.lastSequence().first();
    long cutoff = newest - horizon;
    return cutoff > newest ? Long.MIN_VALUE : cutoff;
  }

  private List<VersionChange> refold(HistoryStore store, KeyState state, ChangeEvent event) {
    BusinessKey key = event.key();
    StoredEvent anchor = store.eventBefore(key, event.sequence());
    Version anchorOpen = anchor == null ? null : anchor.openAfter();
    List<StoredEvent> oldSuffix = store.eventsFrom(key, event.sequence());

    List<ChangeEvent> newEvents = new ArrayList<>(oldSuffix.size() + 1);
    boolean inserted = false;
    for (StoredEvent se : oldSuffix) {
      if (!inserted && !se.sequence().isBefore(event.sequence())) {
        newEvents.add(event); // same sequence: the later arrival replaces the stored event
        inserted = true;
        if (se.sequence().equals(event.sequence())) {
          continue;
        }
      }
      newEvents.add(se.event());
    }
    if (!inserted) {
      newEvents.add(event);
    }

    List<StoredEvent> newSuffix = new ArrayList<>(newEvents.size());
    Version open = anchorOpen;
    for (ChangeEvent e : newEvents) {
      open = step.apply(open, e).open();
      newSuffix.add(new StoredEvent(e, open));
    }

    // Only rewrite what changed: the new event and events whose fold state moved.
    Map<Sequence, StoredEvent> oldBySeq = new LinkedHashMap<>();
    oldSuffix.forEach(se -> oldBySeq.put(se.sequence(), se));
    for (StoredEvent se : newSuffix) {
      if (!se.equals(oldBySeq.get(se.sequence()))) {
        store.putEvent(key, se);
      }
    }
    store.putCurrent(key, new KeyState(state.lastSequence(), open));
    return diff(versionsOf(anchorOpen, oldSuffix), versionsOf(anchorOpen, newSuffix));
  }

  /**
   * The final form of every version from the anchor onward, by {@code valid_from}: the version open at the anchor
   * (if any) and every version the stored events after it opened, with their closes and type-1 updates applied.
   */
  public static Map<Sequence, Version> versionsOf(Version anchorOpen, List<StoredEvent> suffix) {
    Map<Sequence, Version> versions = new LinkedHashMap<>();
    Version open = anchorOpen;
    if (open != null) {
      versions.put(open.validFrom(), open);
    }
    for (StoredEvent se : suffix) {
      Version after = se.openAfter();
      if (open != null && (after == null || !after.validFrom().equals(open.validFrom()))) {
        versions.put(open.validFrom(), versions.get(open.validFrom()).closedAt(se.sequence()));
      }
      if (after != null) {
        versions.put(after.validFrom(), after);
      }
      open = after;
    }
    return versions;
  }

  static List<VersionChange> diff(Map<Sequence, Version> before, Map<Sequence, Version> after) {
    TreeSet<Sequence> identities = new TreeSet<>(before.keySet());
    identities.addAll(after.keySet());
    List<VersionChange> changes = new ArrayList<>();
    for (Sequence from : identities) {
      Version old = before.get(from);
      Version now = after.get(from);
      if (now == null) {
        changes.add(new VersionChange.Retraction(old.key(), from));
      } else if (old == null) {
        changes.add(new VersionChange.Upsert(now, ChangeKind.OPEN));
      } else if (!old.equals(now)) {
        boolean onlyClosed = old.isCurrent() && !now.isCurrent()
            && Objects.equals(old.attributes(), now.attributes());
        changes.add(new VersionChange.Upsert(now, onlyClosed ? ChangeKind.CLOSE : ChangeKind.CORRECT));
      }
    }
    return changes;
  }
}
