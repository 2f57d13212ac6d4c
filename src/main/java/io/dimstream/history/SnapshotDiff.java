package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A full snapshot of the source as version changes ({@code WHEN NOT MATCHED BY SOURCE}): each row
 * is an upsert folded onto its key's latest version, and every key the snapshot does not carry is deleted at the
 * snapshot's sequence. Unchanged rows give nothing; the fold is the one of {@link FoldStep}.
 */
public final class SnapshotDiff {
  private final FoldStep step;
  private final HistoryMode mode;

  public SnapshotDiff(DimensionSpec spec) {
    this(spec, Derivation.NONE);
  }

  /** @param derivation the spec's {@code derive}, applied to each row's upsert as the fold of a change applies it */
  public SnapshotDiff(DimensionSpec spec, Derivation derivation) {
    this.step = new FoldStep(spec.trackedMask(), spec.history(), derivation);
    this.mode = spec.history();
  }

  /**
   * @param latest each key's latest version before the snapshot: its open version (scd2, scd1), or with
   *               {@code soft_delete} its closed row; keys whose versions are all closed are left out under scd2
   * @param rows   the snapshot's rows as upserts (or deletes, for a row a {@code delete.when} condition holds for:
   *               the key closes at the row's sequence); several rows of one key are folded in sequence order (of
   *               equal sequences, the later row counts)
   * @param at     the snapshot's sequence: the {@code valid_to} of every key the snapshot does not carry
   * @return the changes, at most one per version identity, in key order
   */
  public List<VersionChange> diff(Map<BusinessKey, Version> latest, List<ChangeEvent> rows, Sequence at) {
    return diff(latest, rows, at, (key, stored) -> {});
  }

  /**
   * As {@link #diff(Map, List, Sequence)}, telling {@code stored} of each event as the event store would hold it (the
   * event and the version open after it), in the order folded: the rows, then the deletes of the keys left out. A
   * takeover needs those a row does not show (a row equal to its open version, a change of type-1 columns only).
   */
  public List<VersionChange> diff(Map<BusinessKey, Version> latest, List<ChangeEvent> rows, Sequence at,
      java.util.function.BiConsumer<BusinessKey, StoredEvent> stored) {
    Map<BusinessKey, List<ChangeEvent>> byKey = new LinkedHashMap<>();
    for (ChangeEvent e : rows) {
      byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
    }
    Map<VersionId, VersionChange> out = new LinkedHashMap<>();
    byKey.forEach((key, events) -> {
      events.sort(Comparator.comparing(ChangeEvent::sequence)); // stable: of equal sequences the later row counts
      Version open = latest.get(key);
      for (ChangeEvent e : events) {
        FoldStep.Outcome o = step.apply(open, e);
        o.changes().forEach(c -> out.put(c.id(), c));
        open = o.open();
        stored.accept(key, new StoredEvent(e, open));
      }
    });
    latest.forEach((key, version) -> {
      if (!byKey.containsKey(key)) {
        ChangeEvent delete = ChangeEvent.delete(key, at);
        FoldStep.Outcome o = step.apply(version, delete);
        o.changes().forEach(c -> out.put(c.id(), c));
        stored.accept(key, new StoredEvent(delete, o.open()));
      }
    });
    return Scd1Rows.changes(mode, new ArrayList<>(out.values()));
  }
}
