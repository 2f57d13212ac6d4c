package io.dimstream.topology;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Partitions the by-key repartition topic: a change by its business key bytes (as Kafka's default partitioner hashes
 * them, so the partition of every key is unchanged), an end-of-snapshot marker to every partition, because rows of
 * any changes-topic partition may reach any SCD2 task.
 */
final class MarkerBroadcast implements StreamPartitioner<byte[], Envelope> {
  @Override
  public Optional<Set<Integer>> partitions(String topic, byte[] key, Envelope value, int numPartitions) {
    if (Arrays.equals(key, SnapshotMarkers.MARKER_KEY)) {
      Set<Integer> all = new HashSet<>();
      for (int p = 0; p < numPartitions; p++) {
        all.add(p);
      }
      return Optional.of(all);
    }
    return Optional.of(Set.of(BusinessKeyPartitioner.partition(key, numPartitions)));
  }
}
