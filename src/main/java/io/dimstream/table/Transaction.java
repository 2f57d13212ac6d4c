package io.dimstream.table;

import io.dimstream.model.VersionChange;
import io.dimstream.table.internal.commit.ChangeCommit;
import java.util.List;
import java.util.Map;

/**
 * One attempt to commit on top of the snapshot it was started from ({@link DeltaTable#startTransaction()}).
 * It succeeds only if no other writer created the next version in between; otherwise it throws
 * {@link CommitConflictException} and leaves nothing behind. {@link DeltaTable#commit} retries with fresh
 * transactions; use this class directly only to control retries yourself.
 */
public final class Transaction {
  private final ChangeCommit committer;
  private final Snapshot base;
  private boolean used;

  Transaction(ChangeCommit committer, Snapshot base) {
    this.committer = committer;
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
    return commit(changes, txns, operation, 1);
  }

  /**
   * As {@link #commit(List, Map, String)} for one of several writers: the new rows of a merge-on-read commit go to
   * files of their {@code owners} partition, and a lost race against commits that touched none of this commit's
   * files (nor its txn appIds, nor rows of its partitions) is written again on the newer version; any other lost race
   * throws {@link CommitConflictException}, after which a new transaction re-plans on the new snapshot.
   */
  public CommitResult commit(List<VersionChange> changes, Map<String, Long> txns, String operation,
      FileOwners owners) {
    return commit(changes, txns, operation, 1, owners);
  }

  /** The commit as attempt {@code attempt} of {@link DeltaTable#commit}, which reports it in the result. */
  CommitResult commit(List<VersionChange> changes, Map<String, Long> txns, String operation, int attempt) {
    return commit(changes, txns, operation, attempt, FileOwners.none());
  }

  /**
   * As {@link #commit(List, Map, String, FileOwners)}, refused with {@link TxnOverlapException} (nothing written)
   * when the snapshot records, for an appId of {@code fence}, a version at or past where the changes were read from.
   */
  public CommitResult commit(List<VersionChange> changes, Map<String, Long> txns, String operation,
      FileOwners owners, TxnFence fence) {
    return commit(changes, txns, operation, 1, owners, fence);
  }

  /** As {@link #commit(List, Map, String)} with the new rows' {@code owners}, as attempt {@code attempt}. */
  CommitResult commit(List<VersionChange> changes, Map<String, Long> txns, String operation, int attempt,
      FileOwners owners) {
    return commit(changes, txns, operation, attempt, owners, TxnFence.none());
  }

  /** As {@link #commit(List, Map, String, FileOwners, TxnFence)}, as attempt {@code attempt}. */
  CommitResult commit(List<VersionChange> changes, Map<String, Long> txns, String operation, int attempt,
      FileOwners owners, TxnFence fence) {
    if (used) {
      throw new IllegalStateException("a transaction commits at most once; start a new one");
    }
    used = true;
    return committer.commit(base.state, base.layout, changes, txns, operation, attempt, owners, fence);
  }
}
