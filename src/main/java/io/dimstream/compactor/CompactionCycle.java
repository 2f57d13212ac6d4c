package io.dimstream.compactor;

import io.dimstream.table.CommitStateUnknownException;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.OptimizeResult;
import io.dimstream.table.Ownership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bounded background compaction of a merge-on-read table between two commits (when: {@link CompactionSchedule}),
 * of the files the compactor's partitions own. Readers see the same rows before and after.
 */
final class CompactionCycle {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionCycle.class);
  private final DeltaTable table;

  CompactionCycle(DeltaTable table) {
    this.table = table;
  }

  /** Runs a cycle; a failure is logged and retried after the next commit. */
  void run(Ownership owners) {
    long started = System.nanoTime();
    try {
      OptimizeResult r = table.newCompaction().owners(owners).runCycle();
      if (r.committed()) {
        LOG.info("{} compaction: table version {}: compacted {} files into {} ({} rows) ({} ms)", table.store(),
            r.version(), r.filesRemoved(), r.filesAdded(), r.rowsRewritten(), (System.nanoTime() - started) / 1_000_000);
      }
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      // compaction changes no rows: the next cycle retries it, the stream of commits must not stop for it
      LOG.warn("{}: compaction cycle failed, retried after the next commit: {}", table.store(), e.toString());
    }
  }
}
