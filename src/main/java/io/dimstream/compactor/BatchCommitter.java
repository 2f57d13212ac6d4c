package io.dimstream.compactor;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.EventArchive;
import io.dimstream.table.Operation;
import io.dimstream.table.TxnOverlapException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a batch to the table, once its {@link BatchFence} let it: one {@code MERGE} commit with a {@code txn}
 * marker per partition (the last offset applied), the new rows of each partition in files it owns. A batch whose
 * markers the table holds already changes nothing.
 */
final class BatchCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(BatchCommitter.class);
  private final DimensionSpec spec;
  private final DeltaTable table;
  private final BatchFence fence;
  private final CompactorProgress progress;
  private final CommitProbe probe;
  /** Set when a table commit threw: the consumer's close must not commit the batch again from its callback. */
  private volatile boolean failed;

  BatchCommitter(DimensionSpec spec, DeltaTable table, BatchFence fence, CompactorProgress progress,
      CommitProbe probe) {
    this.spec = spec;
    this.table = table;
    this.fence = fence;
    this.progress = progress;
    this.probe = probe;
  }

  /**
   * Commits {@code batch} and clears it.
   *
   * @throws LeaseHeldException when a fence refused it (nothing is written)
   */
  void commit(KafkaConsumer<byte[], byte[]> c, VersionBatch batch) {
    long started = System.nanoTime();
    CommitResult r;
    try {
      fence.check(c, batch);
      probe.beforeTableCommit(batch);
      r = commitToTable(batch);
    } catch (RuntimeException e) {
      // nothing of the batch may be written any more, not even by the consumer's close (its revocation callback)
      failed = true;
      throw e;
    }
    LOG.info("{} <- {} records from {} {} ({} ms)", table.store(), batch.records(), spec.topics().versions(),
        summary(r), (System.nanoTime() - started) / 1_000_000);
    showConsumed(c, batch);
    progress.committed(batch.records());
    batch.clear();
  }

  /** Whether a commit failed: its outcome may be unknown, so nothing more may be written. */
  boolean failed() {
    return failed;
  }

  private CommitResult commitToTable(VersionBatch batch) {
    keepEvents(batch);
    try {
      return table.newCommit(Operation.MERGE)
          .txns(batch.txns())
          .partitions(batch.partitions())
          .fence(fence.tableFence(batch))
          .apply(batch.changes());
    } catch (TxnOverlapException e) {
      throw new LeaseHeldException(e.getMessage());
    }
  }

  /**
   * Writes the batch's event records beside the table before the commit whose markers cover them (see
   * {@link EventArchive}): once the table holds a batch's rows, it holds the events that go with them.
   */
  private void keepEvents(VersionBatch batch) {
    if (batch.events().isEmpty()) {
      return;
    }
    try {
      // the version this compactor knows (no read of the log): the files of a takeover's base, written before, are
      // named with a version not above it, and of equal versions the later written sorts later
      EventArchive.write(table.store(), table.knownVersion(), batch.events());
    } catch (java.io.IOException e) {
      throw new CompactorException("Could not keep " + batch.events().size() + " event records beside the table under "
          + table.store().describe(EventArchive.DIR) + ": " + e.getMessage() + ". Nothing of the batch was committed;"
          + " the compactor reads it again when it restarts", e);
    }
  }

  /**
   * Commits the group offsets after the batch, for monitoring tools only: a compactor resumes from the table's txn
   * markers, never from the group's offsets. This is the second of two group commits per batch on a shared table, and
   * not a redundant one: the first ({@link BatchFence}) must come before the table commit, as the membership check,
   * so it names the offsets the batch started from, which the table covered already; without this one the group
   * would show a compactor's last batch as unconsumed for as long as no new record arrives. Asynchronous: it adds no
   * round trip to the commit path, and its failure changes nothing.
   */
  private void showConsumed(KafkaConsumer<byte[], byte[]> c, VersionBatch batch) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    batch.lastOffsets().forEach((p, o) ->
        offsets.put(new TopicPartition(spec.topics().versions(), p), new OffsetAndMetadata(o + 1)));
    try {
      c.commitAsync(offsets, (committed, e) -> {
        if (e != null) {
          LOG.debug("Could not commit consumer-group offsets: {}", e.toString());
        }
      });
    } catch (RuntimeException e) {
      LOG.debug("Could not commit consumer-group offsets: {}", e.toString());
    }
  }

  private static String summary(CommitResult r) {
    if (!r.committed()) {
      return String.format(Locale.ROOT, "nothing new (table already at version %d holds these offsets)", r.version());
    }
    return String.format(Locale.ROOT, "table version %d: +%d inserted ~%d updated -%d deleted, %d files added, "
        + "%d removed", r.version(), r.rowsInserted(), r.rowsUpdated(), r.rowsDeleted(), r.filesAdded(),
        r.filesRemoved());
  }
}
