package io.dimstream.compactor;

/**
 * Called at the steps of a batch's commit where a compactor can be paused (a GC pause, a frozen host) while the group
 * gives its partitions to another: the zombie tests hold a compactor there. Does nothing in the service.
 */
interface CommitProbe {
  CommitProbe NONE = new CommitProbe() {};

  /** After the check of the table's offsets, before the group is asked whether this compactor is still a member. */
  default void beforeGroupCheck(VersionBatch batch) {}

  /** After both checks, right before the batch's table commit. */
  default void beforeTableCommit(VersionBatch batch) {}
}
