package io.dimstream.table.internal.commit;

import io.dimstream.model.VersionChange;
import io.dimstream.table.CommitResult;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.actions.SetTransaction;
import io.dimstream.table.internal.files.StatsCache;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.log.LogReplay;
import io.dimstream.table.internal.log.TableState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** One attempt to apply a batch of version changes and txn markers as one commit on top of a given state. */
public final class ChangeCommit {
  private final CommitWriter writer;
  private final StatsCache stats;

  public ChangeCommit(CommitWriter writer, StatsCache stats) {
    this.writer = writer;
    this.stats = stats;
  }

  /**
   * Plans, writes the data files and the commit; see {@link io.dimstream.table.Transaction#commit} for the
   * semantics. {@code attempt} (from 1) is reported in the result.
   */
  public CommitResult commit(TableState state, TableLayout layout, List<VersionChange> changes,
      Map<String, Long> txns, String operation, int attempt) {
    long start = System.nanoTime();
    Map<String, Long> markers = txns == null ? Map.of() : txns;
    if (!markers.isEmpty() && markers.entrySet().stream()
        .allMatch(e -> e.getValue() <= txnVersion(state, e.getKey()))) {
      return skipped(state, start, attempt);
    }
    if (changes.isEmpty() && markers.isEmpty()) {
      return skipped(state, start, attempt);
    }
    Map<String, Long> overlapping = new TreeMap<>();
    markers.forEach((app, v) -> {
      if (v <= txnVersion(state, app)) {
        overlapping.put(app, txnVersion(state, app));
      }
    });
    if (!overlapping.isEmpty()) {
      throw TableErrors.txnOverlap(writer.root(), state.version, markers, overlapping);
    }
    LogReplay.checkWritable(writer.root(), state);
    CommitPlanner planner = new CommitPlanner(writer.root(), state, layout, stats);
    CommitPlan plan;
    try {
      plan = planner.plan(changes);
    } catch (RuntimeException e) {
      writer.deleteWritten(planner.written());
      throw e;
    }
    long now = writer.timestampAfter(state);
    List<Action> actions = new ArrayList<>();
    for (AddFile r : plan.removed()) {
      actions.add(r.remove(now, true));
    }
    actions.addAll(plan.added());
    markers.forEach((app, v) -> actions.add(new SetTransaction(app, v, now)));
    Map<String, String> metrics = new LinkedHashMap<>();
    metrics.put("numSourceRows", Long.toString(changes.size()));
    metrics.put("numTargetRowsInserted", Long.toString(plan.inserted()));
    metrics.put("numTargetRowsUpdated", Long.toString(plan.updated()));
    metrics.put("numTargetRowsDeleted", Long.toString(plan.deleted()));
    metrics.put("numTargetRowsCopied", Long.toString(plan.copied()));
    metrics.put("numOutputRows", Long.toString(plan.outputRows()));
    metrics.put("numTargetFilesAdded", Integer.toString(plan.added().size()));
    metrics.put("numTargetFilesRemoved", Integer.toString(plan.removed().size()));
    metrics.put("numTargetBytesAdded", Long.toString(plan.added().stream().mapToLong(AddFile::size).sum()));
    metrics.put("numTargetBytesRemoved", Long.toString(plan.removed().stream().mapToLong(AddFile::size).sum()));
    metrics.put("executionTimeMs", Long.toString(elapsedMs(start)));
    actions.add(0, CommitInfo.of(now, operation, Map.of("predicate", layout.identityPredicate()), metrics,
        state.version, actions.size()).serializable());
    long version = state.version + 1;
    writer.write(version, actions, now, planner.written(), state);
    return new CommitResult(version, true, plan.inserted(), plan.updated(), plan.deleted(), plan.outputRows(),
        plan.added().size(), plan.removed().size(), attempt, elapsedMs(start));
  }

  private static long txnVersion(TableState state, String appId) {
    SetTransaction t = state.txns.get(appId);
    return t == null ? -1 : t.version();
  }

  /** Nothing to write; a skip on a retry still reports the attempts it took. */
  private static CommitResult skipped(TableState state, long start, int attempt) {
    CommitResult r = CommitResult.skipped(state.version, elapsedMs(start));
    return attempt == 1 ? r : new CommitResult(r.version(), false, 0, 0, 0, 0, 0, 0, attempt, r.durationMs());
  }

  private static long elapsedMs(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
