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
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.index.CurrentRowIndex;
import io.dimstream.table.internal.index.HeapPositionIndex;
import io.dimstream.table.internal.index.PositionIndex;
import io.dimstream.table.internal.log.LogReplay;
import io.dimstream.table.internal.log.TableState;
import io.dimstream.table.TxnFence;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** One attempt to apply a batch of version changes and txn markers as one commit on top of a given state. */
public final class ChangeCommit {
  /** How many times a commit is written again on newer versions before it is re-planned. */
  static final int MAX_REBASES = 20;
  private final CommitWriter writer;
  private final StatsCache stats;
  private final CurrentRowIndex index;

  /** {@code index} serves merge-on-read tables (deletion vectors); copy-on-write tables do not use it. */
  public ChangeCommit(CommitWriter writer, StatsCache stats, CurrentRowIndex index) {
    this.writer = writer;
    this.stats = stats;
    this.index = index;
  }

  /**
   * Whether commits on {@code state} go merge-on-read: the protocol has deletion vectors and the property wants them,
   * or a live file still carries one (copy-on-write would read its deleted rows back).
   */
  public static boolean mergeOnRead(TableState state) {
    return state.protocol.supportsDeletionVectors()
        && (TableProperties.deletionVectorsEnabled(state.metadata.configuration())
            || state.adds.values().stream().anyMatch(a -> a.deletionVector() != null));
  }

  /**
   * Plans {@code request}, writes its data files and the commit; see {@link io.dimstream.table.CommitBuilder#apply}
   * for the semantics. {@code attempt} (from 1) is reported in the result. The commit is refused with
   * {@link io.dimstream.table.TxnOverlapException} when {@code state} records, for an appId of the request's fence, a
   * version at or past where the changes were read from. A commit that lost its race to one recording any of these
   * appIds is re-planned (never rebased), so the fence is checked again on the snapshot it is finally written on.
   */
  public CommitResult commit(TableState state, TableLayout layout, ChangeRequest request, int attempt) {
    List<VersionChange> changes = request.changes();
    Map<String, Long> txns = request.txns();
    String operation = request.operation().name();
    SourcePartitions owners = request.sources();
    TxnFence fence = request.fence();
    long start = System.nanoTime();
    Map<String, Long> markers = txns;
    Map<String, Long> passed = fence.passedBy(app -> txnVersion(state, app));
    if (!passed.isEmpty()) {
      throw TableErrors.txnFenced(writer.root(), state.version, fence.readFrom(), passed);
    }
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
    if (mergeOnRead(state)) {
      synchronized (index) {
        return commitMergeOnRead(state, layout, changes, markers, operation, attempt, start, owners,
            fence.readFrom().keySet());
      }
    }
    CommitPlanner planner = new CommitPlanner(writer.root(), state, layout, stats);
    CommitPlan plan;
    try {
      plan = planner.plan(changes);
    } catch (RuntimeException e) {
      writer.deleteWritten(planner.written());
      throw e;
    }
    return write(state, layout, changes, markers, operation, attempt, start, plan, planner.written(),
        new TableState[1], null);
  }

  private CommitResult commitMergeOnRead(TableState state, TableLayout layout, List<VersionChange> changes,
      Map<String, Long> markers, String operation, int attempt, long start, SourcePartitions owners,
      Set<String> fencedAppIds) {
    // a commit of txn markers alone finds no row: it neither builds the index (a takeover's first marker would wait
    // for it) nor moves it, and the next commit that changes rows brings it up to date
    PositionIndex positions = changes.isEmpty() ? new HeapPositionIndex(16) : index.at(state, layout);
    MergeOnReadPlanner planner = new MergeOnReadPlanner(writer.root(), state, layout, stats, positions,
        index.closedFilters());
    CommitPlan plan;
    try {
      plan = planner.plan(CommitPlanner.lastPerIdentity(writer.root(), layout, changes), owners);
    } catch (RuntimeException e) {
      writer.deleteWritten(planner.written());
      throw e;
    }
    Set<String> touched = new HashSet<>();
    plan.removed().forEach(f -> touched.add(f.path()));
    Set<Integer> mine = owners.sources();
    // rows another writer adds for an owner this commit writes (or unowned rows) may be keys of this commit
    Set<String> appIds = new HashSet<>(markers.keySet());
    appIds.addAll(fencedAppIds);
    ConcurrentCommits rule = new ConcurrentCommits(touched, appIds,
        owner -> owner < 0 || mine.contains(owner) || mine.isEmpty());
    TableState[] after = new TableState[1];
    CommitResult result = write(state, layout, changes, markers, operation, attempt, start, plan, planner.written(),
        after, rule);
    if (changes.isEmpty()) {
      return result;
    }
    try {
      planner.applyTo(positions);
      if (after[0].version == state.version + 1) {
        index.committed(after[0], layout);
      } else {
        // written on top of other writers' commits: the index holds this commit but not theirs
        TableState.Builder b = state.toBuilder();
        b.apply(actionsOf(after[0], plan));
        index.committedBehind(b.build(state.version + 1, after[0].timestampMillis), layout, after[0].version);
      }
    } catch (RuntimeException e) {
      index.invalidate();
      throw e;
    }
    return result;
  }

  private CommitResult write(TableState state, TableLayout layout, List<VersionChange> changes,
      Map<String, Long> markers, String operation, int attempt, long start, CommitPlan plan, List<AddFile> written,
      TableState[] after, ConcurrentCommits rule) {
    LongFunction<List<Action>> actionsAt = now -> actions(state, layout, changes, markers, operation, start, plan,
        now);
    if (rule == null) {
      long now = writer.timestampAfter(state);
      after[0] = writer.write(state.version + 1, actionsAt.apply(now), now, written, state);
    } else {
      after[0] = writer.writeRebasing(state, actionsAt, written, rule, MAX_REBASES);
    }
    return new CommitResult(after[0].version, true, plan.inserted(), plan.updated(), plan.deleted(),
        plan.outputRows(), plan.added().size(), plan.removed().size(), attempt, elapsedMs(start));
  }

  /** The data-file actions of {@code plan} (removes, then adds), as committed at {@code committed}'s time. */
  private static List<Action> actionsOf(TableState committed, CommitPlan plan) {
    List<Action> out = new ArrayList<>();
    plan.removed().forEach(r -> out.add(r.remove(committed.timestampMillis, true)));
    out.addAll(plan.added());
    return out;
  }

  private static List<Action> actions(TableState state, TableLayout layout, List<VersionChange> changes,
      Map<String, Long> markers, String operation, long start, CommitPlan plan, long now) {
    List<Action> actions = new ArrayList<>();
    for (AddFile r : plan.removed()) {
      actions.add(r.remove(now, true));
    }
    actions.addAll(plan.added());
    actions.addAll(plan.changeData());
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
    metrics.put("numTargetDeletionVectorsAdded", Long.toString(plan.added().stream()
        .filter(a -> a.deletionVector() != null).count()));
    metrics.put("numTargetDeletionVectorsRemoved", Long.toString(plan.removed().stream()
        .filter(a -> a.deletionVector() != null).count()));
    metrics.put("executionTimeMs", Long.toString(elapsedMs(start)));
    actions.add(0, CommitInfo.of(now, operation, Map.of("predicate", layout.identityPredicate()), metrics,
        state.version, actions.size()).serializable());
    return actions;
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
