package io.dimstream.compactor;

import io.dimstream.model.VersionChange;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

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
