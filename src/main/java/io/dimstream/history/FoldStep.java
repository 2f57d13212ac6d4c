package io.dimstream.history;

import io.dimstream.model.Absent;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One step of the SCD2 fold (docs/concepts.md, "The fold"): given the version open before an event, the
 * version open after it and the changes the event causes. Shared by the reference fold and the incremental
 * engine so the two cannot drift apart.
 *
 * <p>With {@code history: scd1} no attribute is tracked, so every upsert overwrites the key's one version in place,
 * and a delete closes that version but keeps it as the fold's state: a later upsert re-opens the same version
 * ({@code valid_to} back to null). The key keeps one identity, {@code (key, sequence of its first upsert)}, and the
 * state after the last event is the key's row: its latest upsert, closed when a delete came after it.
 */
public final class FoldStep {
  private final boolean[] tracked;
  private final Derivation derivation;
  private final boolean scd1;

  /** @param tracked for each attribute position, whether a change in it opens a new version */
  public FoldStep(boolean[] tracked) {
    this(tracked, HistoryMode.SCD2, Derivation.NONE);
  }

  /** @param derivation fills an upsert's derived attributes before it is compared with the open version */
  public FoldStep(boolean[] tracked, Derivation derivation) {
    this(tracked, HistoryMode.SCD2, derivation);
  }

  /**
   * @param tracked    for each attribute position, whether a change in it opens a new version (all false for scd1)
   * @param mode       scd1 keeps a deleted key's version as the fold's state, so that an upsert re-opens it
   * @param derivation fills an upsert's derived attributes before it is compared with the open version
   */
  public FoldStep(boolean[] tracked, HistoryMode mode, Derivation derivation) {
    this.tracked = tracked.clone();
    this.scd1 = mode.isScd1();
    this.derivation = derivation;
  }

  /** The result of one step: the open version after the event (null if none) and what changed. */
  public record Outcome(Version open, List<VersionChange> changes) {}

  public Outcome apply(Version open, ChangeEvent event) {
    Sequence seq = event.sequence();
    if (event.delete()) {
      if (open == null || !open.isCurrent()) {
        return new Outcome(open, List.of()); // nothing open (scd1: the row is already deleted, at an earlier sequence)
      }
      Version closed = open.closedAt(seq);
      return new Outcome(scd1 ? closed : null, List.of(new VersionChange.Upsert(closed, ChangeKind.CLOSE)));
    }
    // scd1 only: after a delete the key's one version is kept closed; nothing is open before this upsert
    boolean reopens = open != null && !open.isCurrent();
    Version before = reopens ? null : open;
    // Absent attributes first take the open version's values, so expressions see the whole row the event stands for.
    if (event.partial()) {
      event = new ChangeEvent(event.key(), seq, false, resolved(before, event));
    }
    // Derived at every fold, never stored: a re-fold gives the event a new open version to derive from.
    event = derivation.derive(before, event);
    List<Object> attributes = event.attributes();
    if (reopens) {
      // re-opens the key's one version with the upsert's values, resolved and derived as for a new key
      Version reopened = new Version(open.key(), open.validFrom(), null, attributes);
      return new Outcome(reopened, List.of(new VersionChange.Upsert(reopened, ChangeKind.CORRECT)));
    }
    if (open != null && trackedEqual(open.attributes(), attributes)) {
      if (open.attributes().equals(attributes)) {
        return new Outcome(open, List.of());
      }
      // Type 1: untracked columns are overwritten in place; the version keeps its identity.
      Version updated = open.withAttributes(attributes);
      return new Outcome(updated, List.of(new VersionChange.Upsert(updated, ChangeKind.CORRECT)));
    }
    List<VersionChange> changes = new ArrayList<>(2);
    if (open != null) {
      changes.add(new VersionChange.Upsert(open.closedAt(seq), ChangeKind.CLOSE));
    }
    Version opened = new Version(event.key(), seq, null, attributes);
    changes.add(new VersionChange.Upsert(opened, ChangeKind.OPEN));
    return new Outcome(opened, changes);
  }

  /**
   * The event's attributes with each {@link Absent#VALUE} replaced by the open version's value (null when none is
   * open). Resolved here, at fold time, so a late event re-folded before it changes what it keeps.
   */
  private static List<Object> resolved(Version open, ChangeEvent event) {
    if (!event.partial()) {
      return event.attributes();
    }
    List<Object> out = new ArrayList<>(event.attributes());
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i) == Absent.VALUE) {
        out.set(i, open == null ? null : open.attributes().get(i));
      }
    }
    return out;
  }

  boolean trackedEqual(List<Object> a, List<Object> b) {
    for (int i = 0; i < tracked.length; i++) {
      if (tracked[i] && !Objects.equals(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }
}
