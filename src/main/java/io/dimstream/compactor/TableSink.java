package io.dimstream.compactor;

import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/** What the compactor needs of the table: the recorded offsets, and one atomic commit per batch. */
public interface TableSink {

  /** The {@code txn} version the table records for {@code appId}, if any. */
  OptionalLong txnVersion(String appId);

  /**
   * Applies the changes and records the txn markers in one atomic commit; a batch whose markers the table
   * already holds changes nothing.
   *
   * @return a one-line summary of the commit for the log (table version, rows inserted/updated/deleted)
   * @throws LeaseHeldException when another writer has already applied part of this batch (nothing is written)
   */
  String commit(List<VersionChange> changes, Map<String, Long> txns);

  /**
   * Whether several compactors may write this table at once, each for the versions-topic partitions a consumer group
   * assigns it (a merge-on-read table); false when one compactor must hold the table's lease (copy-on-write, where
   * every commit rewrites shared bucket files).
   */
  default boolean sharedWriters() {
    return false;
  }

  /**
   * As {@link #commit(List, Map)} for one of several compactors: the new rows of each change go to files owned by
   * the partition it was read from, and the batch is fenced by where it was read from: when the table records, for
   * any appId of {@code readFrom}, an offset at or past the batch's first one there (another compactor applied those
   * records meanwhile), nothing is written and {@link LeaseHeldException} is thrown. A table that takes several
   * writers must check this atomically with its commit; the default, for a sink with one writer, does not fence.
   *
   * @param readFrom   per txn appId, the offset of the first record of the batch in that partition
   * @param partitions the versions-topic partition of each change's identity
   * @param owned      the partitions this compactor is assigned now
   * @param ownsAll    whether those are all of the topic's partitions
   */
  default String commit(List<VersionChange> changes, Map<String, Long> txns, Map<String, Long> readFrom,
      Map<VersionId, Integer> partitions, Set<Integer> owned, boolean ownsAll) {
    return commit(changes, txns);
  }

  /** As {@link #maintain()}, rewriting only files of the {@code owned} partitions (any file when {@code ownsAll}). */
  default String maintain(Set<Integer> owned, boolean ownsAll) {
    return maintain();
  }

  /**
   * Bounded background maintenance between two commits (for a merge-on-read table: one compaction cycle of files with
   * many deleted rows); readers see the same rows before and after.
   *
   * @return a one-line summary for the log, or null when there was nothing to do
   */
  default String maintain() {
    return null;
  }

  /** The table's latest version, -1 before the first commit. */
  long latestVersion();
}
