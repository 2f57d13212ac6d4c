package io.dimstream.service;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.config.DimensionSpec;
import io.dimstream.expr.SpecExpressions;
import io.dimstream.history.FoldStep;
import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionsById;
import io.dimstream.topology.Scd2Step;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

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

  KeyRunFold(DimensionSpec spec) {
    this.spec = spec;
    this.engine = new IncrementalHistory(spec);
    this.step = new FoldStep(spec.trackedMask());
    this.expressions = SpecExpressions.compile(spec);
  }

  /**
   * Returns the key's versions by {@code valid_from} and adds its rejected events to {@code rejected}.
   *
   * @param source names the input in log lines
   */
  List<Version> fold(List<Arrival> arrivals, List<DeadLetter> rejected, String source) {
    if (!expressions.isEmpty() || spec.history().isScd1()) {
      // Conditions and derived attributes decide per event in arrival order (an expression that fails on a late
      // re-fold rejects the late event), and scd1 turns closes into retractions as the engine emits them: the
      // engine's path gives exactly the streaming history and dead letters.
      return replay(arrivals, rejected, source);
    }
    List<DeadLetter> late = new ArrayList<>();
    try {
      List<Version> versions = foldOnce(arrivals, late);
      rejected.addAll(late);
      return versions;
    } catch (RuntimeException e) {
      // A failing fold step is a bug; the incremental engine isolates it to the one event, so this key takes
      // the engine's path to dead-letter exactly what the streaming path would.
      return replay(arrivals, rejected, source);
    }
  }

  private List<Version> foldOnce(List<Arrival> arrivals, List<DeadLetter> late) {
    List<Arrival> accepted = new ArrayList<>(arrivals.size());
    Sequence newest = null;
    for (Arrival a : arrivals) {
      Sequence seq = a.event().sequence();
      // as IncrementalHistory.apply: only an event at or before the newest can be too late
      if (newest != null && !seq.isAfter(newest) && engine.isBeyondHorizon(seq, newest)) {
        Scd2Step.Rejected r = Scd2Step.tooLate(a.event(), newest.first(), spec.latenessHorizon());
        late.add(DeadLetter.of(a, r.reason(), r.detail()));
        continue;
      }
      accepted.add(a);
      if (newest == null || seq.isAfter(newest)) {
        newest = seq;
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
    return Scd2Fold.foldKey(step, run);
  }

  private List<Version> replay(List<Arrival> arrivals, List<DeadLetter> rejected, String source) {
    Scd2Step engineStep = new Scd2Step(spec, expressions, ChangeDecoder.forSpec(spec), e -> false);
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
    return rows.sorted();
  }
}
