package io.dimstream.table;

import io.dimstream.table.internal.commit.ChangeCommit;
import io.dimstream.table.internal.commit.ChangeRequest;

/**
 * One attempt to commit on top of the snapshot it was started from ({@link DeltaTable#startTransaction()}).
 * It succeeds only if no other writer created the next version in between; otherwise it throws
 * {@link CommitConflictException} and leaves nothing behind. {@link DeltaTable#newCommit} retries with fresh
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
   * A commit of version changes on this transaction's snapshot, in one attempt: a lost race throws
   * {@link CommitConflictException}, after which a new transaction re-plans on the new snapshot (unless the commit
   * named its {@linkplain CommitBuilder#partitions partitions} and the winners touched none of its files: then it is
   * written again on the newer version). {@link CommitBuilder#apply} throws {@link IllegalStateException} when this
   * transaction has committed already.
   */
  public CommitBuilder newCommit(Operation operation) {
    return new CommitBuilder(operation, request -> commit(request, 1));
  }

  /** The commit as attempt {@code attempt} of {@link DeltaTable#newCommit}, which reports it in the result. */
  CommitResult commit(ChangeRequest request, int attempt) {
    if (used) {
      throw new IllegalStateException("a transaction commits at most once; start a new one");
    }
    used = true;
    return committer.commit(base.state, base.layout, request, attempt);
  }
}
