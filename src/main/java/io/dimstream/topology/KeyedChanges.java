package io.dimstream.topology;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.Decoded;
import io.dimstream.codec.EventJson;
import io.dimstream.spec.DimensionSpec;
import java.util.Optional;

/**
 * The partitioning a changes topic declared {@code topics.changes_keyed_by_business_key: true} must follow: each
 * record keyed by its canonical business key bytes ({@link EventJson#keyBytes}: the key columns' values as a
 * compact JSON array, e.g. {@code [42]} or {@code ["eu",7]}) and in partition {@link #partition} of the changes
 * topic, which is what Kafka's default partitioner gives a record with that key. Producers use it through
 * {@link #route}; the topology checks every record against the same function.
 */
public final class KeyedChanges {
  private final ChangeDecoder decoder;
  private final EventJson json;

  /**
   * A router for records of {@code spec}.
   *
   * @throws io.dimstream.change.ChangeException when the spec's Avro schema cannot be used for decoding
   */
  public KeyedChanges(DimensionSpec spec) {
    this.decoder = ChangeDecoder.forSpec(spec);
    this.json = new EventJson(spec);
  }

  /** Where one change record goes: its record key (the canonical key bytes) and its partition. */
  public record Route(byte[] key, int partition) {}

  /**
   * The partition, among {@code partitions}, of the business key with canonical bytes {@code canonicalKey}:
   * murmur2 of the bytes, made positive, modulo the partition count (Kafka's default partitioner for keyed
   * records).
   */
  public static int partition(byte[] canonicalKey, int partitions) {
    return BusinessKeyPartitioner.partition(canonicalKey, partitions);
  }

  /**
   * The route of a change record among {@code partitions}; empty when the record does not decode (it is then
   * rejected to the dead-letter topic wherever it is sent, so any partition will do).
   */
  public Optional<Route> route(byte[] recordKey, byte[] value, int partitions) {
    Decoded d;
    try {
      d = decoder.decode(recordKey, value, -1);
    } catch (RuntimeException e) {
      return Optional.empty(); // the topology rejects it as processing-error, in any partition
    }
    if (!(d instanceof Decoded.Accepted a)) {
      return Optional.empty();
    }
    byte[] key = json.keyBytes(a.event().key());
    return Optional.of(new Route(key, partition(key, partitions)));
  }
}
