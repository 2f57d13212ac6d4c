package io.dimstream.topology;

import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Partitions versions-topic records by the business key alone (murmur2 of the canonical key bytes, as Kafka's
 * default partitioner would hash a record keyed by them), not by the full record key (key + {@code valid_from}): so
 * every record of one key lands in one partition, in the order it was emitted.
 */
final class BusinessKeyPartitioner implements StreamPartitioner<OutKey, byte[]> {

  /** The partition of the business key with canonical bytes {@code businessKey} among {@code partitions}. */
  static int partition(byte[] businessKey, int partitions) {
    return Utils.toPositive(Utils.murmur2(businessKey)) % partitions;
  }

  @Override
  public Optional<Set<Integer>> partitions(String topic, OutKey key, byte[] value, int numPartitions) {
    return Optional.of(Set.of(partition(key.businessKey(), numPartitions)));
  }
}
