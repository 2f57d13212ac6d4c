package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reference SCD2 fold (docs/concepts.md, "The fold"): the history of a key as a pure function of the set of its
 * events. Not incremental; the engine, the tests and the backfill compare against it.
 */
public final class Scd2Fold {
  private Scd2Fold() {}

  /**
   * Folds events given in arrival order (which only decides between events of one key with equal sequences:
   * the last to arrive counts) into versions, sorted by key then {@code valid_from}.
   */
  public static List<Version> fold(DimensionSpec spec, List<ChangeEvent> eventsInArrivalOrder) {
    return fold(spec.trackedMask(), spec.history(), Derivation.NONE, eventsInArrivalOrder);
  }

  /** As {@link #fold(boolean[], List)}, for a table of the given history mode. */
  public static List<Version> fold(boolean[] tracked, HistoryMode mode, List<ChangeEvent> eventsInArrivalOrder) {
    return fold(tracked, mode, Derivation.NONE, eventsInArrivalOrder);
  }

  /** As {@link #fold(boolean[], List)}, deriving attributes at each step in sequence order. */
  public static List<Version> fold(boolean[] tracked, Derivation derivation, List<ChangeEvent> eventsInArrivalOrder) {
    return fold(tracked, HistoryMode.SCD2, derivation, eventsInArrivalOrder);
  }

  public static List<Version> fold(boolean[] tracked, List<ChangeEvent> eventsInArrivalOrder) {
    return fold(tracked, HistoryMode.SCD2, Derivation.NONE, eventsInArrivalOrder);
  }

  /**
   * As {@link #fold(boolean[], List)} for a table of the given mode, deriving attributes at each step in sequence
   * order: with {@code history: scd1}, one row per key (its latest upsert by sequence; closed when a delete followed
   * it, dropped when deletes remove rows).
   */
  public static List<Version> fold(boolean[] tracked, HistoryMode mode, Derivation derivation,
      List<ChangeEvent> eventsInArrivalOrder) {
    Map<BusinessKey, TreeMap<Sequence, ChangeEvent>> byKey = new HashMap<>();
    for (ChangeEvent e : eventsInArrivalOrder) {
      byKey.computeIfAbsent(e.key(), k -> new TreeMap<>()).put(e.sequence(), e);
    }
    FoldStep step = new FoldStep(tracked, mode, derivation);
    List<Version> out = new ArrayList<>();
    for (TreeMap<Sequence, ChangeEvent> events : byKey.values()) {
      out.addAll(foldKey(step, events.values()));
    }
    out.sort(BusinessKeys.VERSION_ORDER);
    return Scd1Rows.versions(mode, out);
  }

  /**
   * Folds one key's events, already sorted by sequence and free of equal sequences, into its versions ordered by
   * {@code valid_from}. The batch backfill folds each key's run with it.
   */
  public static List<Version> foldKey(FoldStep step, Iterable<ChangeEvent> sortedEvents) {
    Map<Sequence, Version> versions = new LinkedHashMap<>();
    Version open = null;
    for (ChangeEvent e : sortedEvents) {
      FoldStep.Outcome o = step.apply(open, e);
      for (VersionChange c : o.changes()) {
        if (c instanceof VersionChange.Upsert u) {
          versions.put(u.validFrom(), u.version());
        }
      }
      open = o.open();
    }
    return new ArrayList<>(versions.values());
  }
}
