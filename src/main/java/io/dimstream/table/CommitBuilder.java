package io.dimstream.table;

import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.table.internal.commit.ChangeRequest;
import io.dimstream.table.internal.commit.SourcePartitions;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * One commit of version changes, described step by step and applied by {@link #apply}: the way every writer commits
 * changes to a table (only the parallel first load of an empty table, {@link BulkLoad}, has its own). From
 * {@link DeltaTable#newCommit} it re-plans on the newer snapshot when another writer wins the race; from
 * {@link Transaction#newCommit} it is one attempt on the transaction's snapshot.
 *
 * <pre>{@code
 * CommitResult r = table.newCommit(Operation.MERGE)
 *     .txns(Map.of("customers-versions-0", 41L))    // recorded as Delta txn actions
 *     .partitions(partitionOfEachIdentity)           // only for one of several writers
 *     .fence(new TxnFence(Map.of("customers-versions-0", 30L)))
 *     .apply(changes);
 * }</pre>
 */
public final class CommitBuilder {
  private final Operation operation;
  private final Function<ChangeRequest, CommitResult> commit;
  private Map<String, Long> txns = Map.of();
  private SourcePartitions partitions = SourcePartitions.none();
  private TxnFence fence = TxnFence.none();

  CommitBuilder(Operation operation, Function<ChangeRequest, CommitResult> commit) {
    this.operation = Objects.requireNonNull(operation, "operation");
    this.commit = commit;
  }

  /**
   * Records each entry as a Delta {@code txn} action (appId to version). A version not above the recorded one is not
   * written (markers never go backwards). The table cannot tell which change came from which appId: the caller must
   * not resend changes an already recorded txn covers. None by default.
   */
  public CommitBuilder txns(Map<String, Long> txns) {
    this.txns = Objects.requireNonNull(txns, "txns");
    return this;
  }

  /**
   * For one of several writers of a merge-on-read table: the versions-topic partition each change's identity came
   * from. The new rows of each partition go to files owned by it, which only that partition's owner compacts
   * ({@link Ownership}); a lost race against commits that touched none of this commit's files, recorded none of its
   * txn appIds and added no rows of its partitions is then written again on the newer version as it is (Delta's rule
   * for compatible concurrent writes) instead of being re-planned. By default new rows go to unowned files.
   */
  public CommitBuilder partitions(Map<VersionId, Integer> partitionOfIdentity) {
    this.partitions = SourcePartitions.of(partitionOfIdentity);
    return this;
  }

  /**
   * Where the changes were read from ({@link TxnFence}): the commit is refused with {@link TxnOverlapException},
   * nothing written, when the table records (at the version the commit would be written on, after any re-plan) a
   * txn version at or past that position. No fence by default.
   */
  public CommitBuilder fence(TxnFence fence) {
    this.fence = Objects.requireNonNull(fence, "fence");
    return this;
  }

  /**
   * Applies {@code changes} as one commit: each upsert replaces the version with the same identity (key, full
   * valid_from) or inserts it, each retraction deletes it (a retraction of an absent version does nothing); the last
   * change per identity wins. The txn markers go in the same commit.
   *
   * @param changes may be empty (then only the txn markers are committed)
   * @return the result; {@code committed} is false (and nothing is written) when the txns are non-empty and every one
   *     of their versions is at most what the table already records, or when there are neither changes nor txns
   * @throws CommitConflictException when another writer created the next version first (after every attempt)
   * @throws TxnOverlapException when some, but not all, of the txns are already recorded (another writer applied part
   *     of the same source), or the fence is passed; nothing is written
   * @throws CommitStateUnknownException when the commit file could not be written and its fate is unknown
   */
  public CommitResult apply(List<VersionChange> changes) {
    Objects.requireNonNull(changes, "changes");
    return commit.apply(new ChangeRequest(changes, txns, operation, partitions, fence));
  }
}
