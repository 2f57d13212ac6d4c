package io.dimstream.table;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.VersionChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One attempt to commit on top of the snapshot it was started from ({@link DeltaTable#startTransaction()}).
 * It succeeds only if no other writer created the next version in between; otherwise it throws
 * {@link CommitConflictException} and leaves nothing behind. {@link DeltaTable#commit} retries with fresh
 * transactions; use this class directly only to control retries yourself.
 */
public final class Transaction {
  private final DeltaTable table;
  private final Snapshot base;
  private boolean used;

  Transaction(DeltaTable table, Snapshot base) {
    this.table = table;
    this.base = base;
  }

  /** The snapshot this transaction reads and commits on top of. */
  public Snapshot snapshot() {
    return base;
  }

  /**
   * Applies {@code changes} as one commit: each upsert replaces the version with the same identity
   * (key, full valid_from) or inserts it, each retraction deletes it (a retraction of an absent version does
   * nothing); the last change per identity wins. Records each {@code txns} entry as a Delta {@code txn}.
   *
   * @param changes   may be empty (then only the txn markers are committed)
   * @param txns      appId to version; null or empty for none. A version not above the recorded one is not
   *                  written (markers never go backwards). The table cannot tell which change came from which
   *                  appId: the caller must not resend changes an already recorded txn covers
   * @param operation the commitInfo operation, e.g. {@code MERGE} or {@code WRITE}
   * @return the result; {@code committed} is false (and nothing is written) when {@code txns} is non-empty and
   *     every one of its versions is at most what the snapshot already records, or when both arguments are empty
   * @throws CommitConflictException when another writer created the next version first
   * @throws TxnOverlapException when some, but not all, of {@code txns} are already recorded (another writer
   *     applied part of the same source); nothing is written
   * @throws CommitStateUnknownException when the commit file could not be written and its fate is unknown
   * @throws IllegalStateException when called twice
   */
  public CommitResult commit(List<VersionChange> changes, Map<String, Long> txns, String operation) {
    if (used) {
      throw new IllegalStateException("a transaction commits at most once; start a new one");
    }
    used = true;
    long start = System.nanoTime();
    TableState state = base.state;
    Map<String, Long> markers = txns == null ? Map.of() : txns;
    if (!markers.isEmpty() && markers.entrySet().stream()
        .allMatch(e -> e.getValue() <= base.txnVersion(e.getKey()))) {
      return CommitResult.skipped(state.version, elapsedMs(start));
    }
    if (changes.isEmpty() && markers.isEmpty()) {
      return CommitResult.skipped(state.version, elapsedMs(start));
    }
    Map<String, Long> overlapping = new java.util.TreeMap<>();
    markers.forEach((app, v) -> {
      if (v <= base.txnVersion(app)) {
        overlapping.put(app, base.txnVersion(app));
      }
    });
    if (!overlapping.isEmpty()) {
      throw TableErrors.txnOverlap(table.path(), state.version, markers, overlapping);
    }
    LogReplay.checkWritable(table.path(), state);
    CommitPlanner planner = new CommitPlanner(table, state, base.layout);
    CommitPlanner.Plan plan;
    try {
      plan = planner.plan(changes);
    } catch (RuntimeException e) {
      table.deleteWritten(planner.written());
      throw e;
    }
    long now = table.commitTimestamp(state);
    List<Action> actions = new ArrayList<>();
    for (AddFile r : plan.removed()) {
      actions.add(r.remove(now, true));
    }
    actions.addAll(plan.added());
    markers.forEach((app, v) -> actions.add(new SetTransaction(app, v, now)));
    ObjectNode info = ActionCodec.JSON.createObjectNode();
    info.put("timestamp", now);
    info.put("operation", operation);
    ObjectNode params = info.putObject("operationParameters");
    params.put("predicate", base.layout.identityPredicate());
    ObjectNode metrics = info.putObject("operationMetrics");
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
    info.put("readVersion", state.version);
    info.put("isolationLevel", "Serializable");
    info.put("isBlindAppend", false);
    info.put("engineInfo", DeltaTable.ENGINE_INFO);
    info.put("txnId", UUID.randomUUID().toString());
    info.put(CommitInfo.ACTION_COUNT, actions.size());
    actions.add(0, new CommitInfo(info));
    long version = state.version + 1;
    table.writeCommit(version, actions, now, planner.written(), state);
    return new CommitResult(version, true, plan.inserted(), plan.updated(), plan.deleted(), plan.outputRows(),
        plan.added().size(), plan.removed().size(), 1, elapsedMs(start));
  }

  private static long elapsedMs(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
