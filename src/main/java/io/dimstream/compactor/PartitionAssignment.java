package io.dimstream.compactor;

import io.dimstream.table.DeltaTable;
import io.dimstream.table.Ownership;
import io.dimstream.table.Snapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The versions-topic partitions this compactor reads now (all of them with the lease, the group's share otherwise),
 * and where it reads each from: right after the offset the table records for it, never the group's offsets.
 */
final class PartitionAssignment {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionAssignment.class);
  private final DeltaTable table;
  private final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();
  private volatile int topicPartitions;
  /** False until the group first assigned partitions: the lag is unknown until then. */
  private volatile boolean joined;
  /** Set once the versions topic's identity is known, before any partition is read. */
  private volatile TrustedMarkers markers;

  PartitionAssignment(DeltaTable table) {
    this.table = table;
  }

  /** Which of the table's offsets say where a partition resumes; before {@link #assignAll} or the group's first. */
  void trust(TrustedMarkers markers) {
    this.markers = markers;
  }

  /** Reads every partition of the topic (the table's lease holder). */
  void assignAll(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions) {
    c.assign(partitions);
    assigned.addAll(partitions);
    topicPartitions = partitions.size();
    joined = true;
    seekToTableOffsets(c, partitions);
  }

  /** The group assigned {@code added} of the topic's {@code topicPartitions} (0 when they could not be counted). */
  void added(KafkaConsumer<byte[], byte[]> c, Collection<TopicPartition> added, int topicPartitions) {
    assigned.addAll(added);
    joined = true;
    if (topicPartitions > 0) {
      this.topicPartitions = topicPartitions;
    }
    seekToTableOffsets(c, added);
  }

  void removed(Collection<TopicPartition> removed) {
    assigned.removeAll(removed);
  }

  /** The partitions read now. */
  List<TopicPartition> current() {
    return List.copyOf(assigned);
  }

  /** The partitions read now; null before the group first assigned any (their lag is unknown until then). */
  List<TopicPartition> joinedPartitions() {
    return joined ? current() : null;
  }

  /** The partition numbers read now. */
  Set<Integer> numbers() {
    Set<Integer> out = new TreeSet<>();
    assigned.forEach(tp -> out.add(tp.partition()));
    return out;
  }

  int topicPartitions() {
    return topicPartitions;
  }

  /** The files this compactor may compact: those of its partitions, unowned ones when it reads every partition. */
  Ownership ownership() {
    return Ownership.of(numbers(), topicPartitions);
  }

  /**
   * Positions each of {@code partitions} right after the offset the table records for it in this topic incarnation,
   * else at its start.
   */
  void seekToTableOffsets(KafkaConsumer<byte[], byte[]> c, Collection<TopicPartition> partitions) {
    List<TopicPartition> fromStart = new ArrayList<>();
    Snapshot known = table.latest();
    for (TopicPartition tp : partitions) {
      long recorded = markers.recorded(known, tp.partition());
      if (recorded >= 0) {
        c.seek(tp, recorded + 1);
        LOG.info("Resuming {} at offset {} (recorded in table version {})", tp, recorded + 1, known.version());
      } else {
        fromStart.add(tp);
      }
    }
    if (!fromStart.isEmpty()) {
      c.seekToBeginning(fromStart);
    }
  }
}
