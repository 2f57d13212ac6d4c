package io.dimstream.compactor;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the consumer group's assignment (runs on the polling thread, inside {@code poll}): before partitions go,
 * what was read is committed, so no batch is ever half-applied; a partition that comes is read from right after the
 * offset the table records for it.
 */
final class GroupRebalance implements ConsumerRebalanceListener {
  private static final Logger LOG = LoggerFactory.getLogger(GroupRebalance.class);
  private final String dimension;
  private final String topic;
  private final KafkaConsumer<byte[], byte[]> c;
  private final VersionBatch batch;
  private final PartitionAssignment assignment;
  private final BatchCommitter committer;
  private final BooleanSupplier failed;

  /** {@code failed}: whether the compactor stopped with an error (then it writes nothing more). */
  GroupRebalance(String dimension, String topic, KafkaConsumer<byte[], byte[]> c, VersionBatch batch,
      PartitionAssignment assignment, BatchCommitter committer, BooleanSupplier failed) {
    this.dimension = dimension;
    this.topic = topic;
    this.c = c;
    this.batch = batch;
    this.assignment = assignment;
    this.committer = committer;
    this.failed = failed;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
    // after a failed commit (its outcome may be unknown) the consumer closes: nothing more may be written
    if (!batch.isEmpty() && !failed.getAsBoolean() && !committer.failed()) {
      committer.commit(c, batch);
    }
    assignment.removed(revoked);
    LOG.info("Compactor of {} gave up {}", dimension, revoked);
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> lost) {
    // Another member may already write these partitions: committing now could apply records twice. Drop the
    // whole batch and re-read the partitions kept from the table's offsets.
    assignment.removed(lost);
    batch.clear();
    assignment.seekToTableOffsets(c, assignment.current());
    LOG.warn("Compactor of {} lost {} without a clean hand-over; its pending records were dropped and are re-read "
        + "by the new owner", dimension, lost);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> added) {
    int count = 0;
    try {
      count = c.partitionsFor(topic, Duration.ofSeconds(10)).size();
    } catch (RuntimeException e) {
      LOG.debug("Could not count the partitions of {}: {}", topic, e.toString());
    }
    assignment.added(c, List.copyOf(added), count);
    LOG.info("Compactor of {} now writes {} of {} partitions: {}", dimension, assignment.numbers().size(),
        assignment.topicPartitions(), assignment.numbers());
  }
}
