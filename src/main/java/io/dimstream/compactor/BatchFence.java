package io.dimstream.compactor;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.Snapshot;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.TxnFence;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a zombie from committing: a compactor paused (by GC or a frozen host) while the group gave its partitions to
 * another must write nothing of the batch it read before. Three checks, each refusing with
 * {@link LeaseHeldException}:
 *
 * <ol>
 *   <li>the table must record no offset at or past the batch's first one in any of its partitions (cheap, early);
 *   <li>on a shared table, the group must still count this compactor a member of its current generation;
 *   <li>the table checks the first again ({@link #tableFence}) on the very version the commit is written on, so it
 *       holds however long the compactor is paused between the checks and the write.
 * </ol>
 */
final class BatchFence {
  private static final Logger LOG = LoggerFactory.getLogger(BatchFence.class);
  /** How long a commit waits for the group coordinator to confirm this compactor's membership. */
  static final Duration MEMBERSHIP_TIMEOUT = Duration.ofSeconds(5);

  private final DimensionSpec spec;
  private final DeltaTable table;
  private final TrustedMarkers markers;
  private final boolean groupMember;
  private final CommitProbe probe;

  /** {@code groupMember}: the compactor reads its partitions as a member of the group (a shared table). */
  BatchFence(DimensionSpec spec, DeltaTable table, TrustedMarkers markers, boolean groupMember, CommitProbe probe) {
    this.spec = spec;
    this.table = table;
    this.markers = markers;
    this.groupMember = groupMember;
    this.probe = probe;
  }

  /** The checks before the commit (1 and 2). */
  void check(KafkaConsumer<byte[], byte[]> c, VersionBatch batch) {
    // Another writer that applied any of these records means this compactor's position is stale: fail early.
    Snapshot known = table.latest();
    for (Map.Entry<Integer, Long> first : batch.firstOffsets().entrySet()) {
      long recorded = markers.recorded(known, first.getKey());
      if (recorded >= first.getValue()) {
        throw CompactorErrors.overtaken(spec.topics().versions(), first.getKey(), first.getValue(), recorded);
      }
    }
    probe.beforeGroupCheck(batch);
    if (groupMember) {
      confirmGroupMembership(c, batch);
    }
  }

  /** The check the table makes at the commit (3): where the batch was read from in each partition. */
  TxnFence tableFence(VersionBatch batch) {
    return new TxnFence(batch.readFrom());
  }

  /**
   * Asks the group coordinator whether this compactor is still a member of the group's current generation, by
   * committing the group offsets the batch started from (the table already covers everything before them, so they
   * say nothing new). A member removed from the group (its poll or session timeout passed while it was paused) is
   * refused: its partitions belong to another compactor now, so the batch is dropped and re-read from the table's
   * offsets. When the coordinator cannot be asked (a broker down, a rebalance under way) the table's fence decides
   * alone.
   */
  private void confirmGroupMembership(KafkaConsumer<byte[], byte[]> c, VersionBatch batch) {
    Map<TopicPartition, OffsetAndMetadata> startedAt = new HashMap<>();
    batch.firstOffsets().forEach((p, o) ->
        startedAt.put(new TopicPartition(spec.topics().versions(), p), new OffsetAndMetadata(o)));
    try {
      c.commitSync(startedAt, MEMBERSHIP_TIMEOUT);
    } catch (CommitFailedException | FencedInstanceIdException e) {
      throw CompactorErrors.notAGroupMember(spec.name() + "-compactor", batch.firstOffsets().keySet(), e);
    } catch (RuntimeException e) {
      LOG.debug("Could not confirm the group membership before a commit ({}); the table's txn fence decides",
          e.toString());
    }
  }
}
