package io.dimstream.batch;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.RejectReason;
import io.dimstream.expr.ExpressionException;
import io.dimstream.expr.SpecExpressions;
import io.dimstream.history.Derivation;
import io.dimstream.history.FoldStep;
import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.Scd2Fold;
import io.dimstream.history.StoredEvent;
import io.dimstream.history.TableEvents;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionsById;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.topology.Scd2Step;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Folds one key's events, given in arrival order, once: the lateness horizon is judged in arrival order as the
 * engine judges it, then the accepted events are sorted by sequence (the last arrival wins a tie) and folded with
 * the engine's own {@link FoldStep}. Thread-safe.
 */
final class KeyRunFold {
  private static final Comparator<Arrival> BY_SEQUENCE = Comparator.comparing(a -> a.event().sequence());

  private final DimensionSpec spec;
  private final IncrementalHistory engine;
  private final FoldStep step;
  private final SpecExpressions expressions;
  /** The engine's path for a key whose history depends on arrival order; immutable, shared by every key. */
  private final Scd2Step engineStep;
  /** Whether the spec has {@code skip_when} or {@code delete.when}. */
  private final boolean conditions;
  /** Whether the spec has {@code derive} (applied before the fold here: it reads the event alone). */
  private final boolean derives;

  KeyRunFold(DimensionSpec spec) {
    this.spec = spec;
    this.engine = new IncrementalHistory(spec);
    this.step = new FoldStep(spec.trackedMask());
    this.expressions = SpecExpressions.compile(spec);
    this.engineStep = new Scd2Step(spec, expressions, ChangeDecoder.forFiles(spec), e -> false);
    this.conditions = expressions.hasConditions();
    this.derives = expressions.derivation() != Derivation.NONE;
  }

  /**
   * Returns the key's versions by {@code valid_from} and adds its rejected events to {@code rejected}.
   *
   * @param source names the input in log lines
   */
  List<Version> fold(List<Arrival> arrivals, List<DeadLetter> rejected, String source) {
    return fold(arrivals, rejected, source, null);
  }

  /**
   * As {@link #fold(List, List, String)}, also handing {@code hidden} the key's stored events its versions do not
   * show ({@link TableEvents#hidden}), when it is not null.
   */
  List<Version> fold(List<Arrival> arrivals, List<DeadLetter> rejected, String source, Consumer<StoredEvent> hidden) {
    if (spec.history().isScd1() || expressions.derivesFromPrev() || anyPartial(arrivals)) {
      // A derived value that reads prev (or an event's missing columns, filled from the version before it) depends
      // on the events folded before it, and so on arrival order (an expression that fails on a late re-fold
      // rejects the late event); scd1 turns closes into retractions as the engine emits them: the engine's path
      // gives exactly the streaming history and dead letters.
      return replay(arrivals, rejected, source, hidden);
    }
    List<DeadLetter> late = new ArrayList<>();
    try {
      List<Version> versions = foldOnce(arrivals, late, hidden);
      rejected.addAll(late);
      return versions;
    } catch (RuntimeException e) {
      // A failing fold step is a bug; the incremental engine isolates it to the one event, so this key takes
      // the engine's path to dead-letter exactly what the streaming path would.
      return replay(arrivals, rejected, source, hidden);
    }
  }

  /** Whether {@code derive} would read an event's missing columns ({@code missing_fields: keep}). */
  private boolean anyPartial(List<Arrival> arrivals) {
    if (!derives) {
      return false;
    }
    for (Arrival a : arrivals) {
      if (a.event().partial()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The engine's decisions in arrival order, without its event store: the conditions first (a skipped event is as
   * if never sent, so it moves no horizon), then the lateness horizon, then {@code derive}, which reads the event
   * alone here: it gives the event the value every fold of the engine gives it, and fails where the engine's
   * first fold of the event fails.
   */
  private List<Version> foldOnce(List<Arrival> arrivals, List<DeadLetter> late, Consumer<StoredEvent> hidden) {
    List<Arrival> accepted = new ArrayList<>(arrivals.size());
    Sequence newest = null;
    for (Arrival a : arrivals) {
      ChangeEvent event = a.event();
      try {
        if (conditions || event.delete()) {
          Optional<ChangeEvent> admitted = expressions.admit(event);
          if (admitted.isEmpty()) {
            continue;
          }
          event = admitted.get();
        }
        Sequence seq = event.sequence();
        // as IncrementalHistory.apply: only an event at or before the newest can be too late
        if (newest != null && !seq.isAfter(newest) && engine.isBeyondHorizon(seq, newest)) {
          Scd2Step.Rejected r = Scd2Step.tooLate(event, newest.first(), spec.latenessHorizon());
          late.add(DeadLetter.of(a, r.reason(), r.detail()));
          continue;
        }
        if (derives && !event.delete()) {
          event = expressions.derive(null, event);
        }
      } catch (ExpressionException e) {
        late.add(DeadLetter.of(a, RejectReason.EXPRESSION_ERROR, e.getMessage()));
        continue;
      }
      accepted.add(event == a.event() ? a : new Arrival(a.line(), event, a.value(), a.valueAt()));
      if (newest == null || event.sequence().isAfter(newest)) {
        newest = event.sequence();
      }
    }
    accepted.sort(BY_SEQUENCE); // stable: equal sequences stay in arrival order
    List<ChangeEvent> run = new ArrayList<>(accepted.size());
    for (int i = 0; i < accepted.size(); i++) {
      boolean supersededByLaterArrival = i + 1 < accepted.size()
          && accepted.get(i + 1).event().sequence().equals(accepted.get(i).event().sequence());
      if (!supersededByLaterArrival) {
        run.add(accepted.get(i).event());
      }
    }
    List<Version> versions = Scd2Fold.foldKey(step, run);
    if (hidden != null) {
      // the events as the engine would store them: each with the version open after it
      List<StoredEvent> stored = new ArrayList<>(run.size());
      Version open = null;
      for (ChangeEvent e : run) {
        open = step.apply(open, e).open();
        stored.add(new StoredEvent(e, open));
      }
      TableEvents.hidden(stored, versions, spec.history(), engine).forEach(hidden);
    }
    return versions;
  }

  private List<Version> replay(List<Arrival> arrivals, List<DeadLetter> rejected, String source,
      Consumer<StoredEvent> hidden) {
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    VersionsById rows = new VersionsById();
    for (Arrival a : arrivals) {
      Scd2Step.Outcome o = engineStep.apply(store, a.event(), () -> source + ", line " + a.line());
      if (o instanceof Scd2Step.Applied applied) {
        rows.apply(applied.result().changes());
      } else {
        Scd2Step.Rejected r = (Scd2Step.Rejected) o;
        rejected.add(DeadLetter.of(a, r.reason(), r.detail()));
      }
    }
    List<Version> versions = rows.sorted();
    if (hidden != null && !arrivals.isEmpty()) {
      long[] lowest = new long[spec.sequence().size()];
      java.util.Arrays.fill(lowest, Long.MIN_VALUE);
      List<StoredEvent> stored = store.eventsFrom(arrivals.get(0).event().key(), Sequence.of(lowest));
      TableEvents.hidden(stored, versions, spec.history(), engineStep.history()).forEach(hidden);
    }
    return versions;
  }
}
