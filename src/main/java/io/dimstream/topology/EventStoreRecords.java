package io.dimstream.topology;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.StoredEvent;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;

/**
 * Stored events in the form of the event store's changelog records: the record key and value the SCD2 processor's
 * store would write for them, and the partition of the stream task that owns their key. Writing such records to the
 * changelog before the topology starts is how a table's history becomes the topology's state: Kafka Streams restores
 * the store from them as it would after a lost disk.
 */
public final class EventStoreRecords {
  private final EventJson json;
  private final StateBinary state;
  private final int partitions;
  private final int sequenceParts;

  /**
   * @param partitions the changelog's partition count: the changes topic's, one stream task per partition
   */
  public EventStoreRecords(DimensionSpec spec, StateLayouts layouts, int partitions) {
    this.json = new EventJson(spec, layouts);
    this.state = new StateBinary(spec, layouts);
    this.partitions = partitions;
    this.sequenceParts = spec.sequence().size();
  }

  /** One changelog record of the event store. */
  public record ChangelogRecord(int partition, byte[] key, byte[] value) {}

  /** The changelog topic of the event store of the Streams application {@code applicationId}. */
  public static String changelogTopic(String applicationId) {
    return applicationId + "-" + DimensionTopology.EVENT_STORE + "-changelog";
  }

  /** The record that stores {@code stored} under its key and sequence. */
  public ChangelogRecord of(StoredEvent stored) {
    if (stored.sequence().size() != sequenceParts) {
      throw new IllegalArgumentException("expected a sequence of " + sequenceParts + " parts, got " + stored.sequence());
    }
    byte[] keyBytes = json.keyBytes(stored.event().key());
    byte[] key = RocksDbHistoryStore.eventKey(keyBytes, stored.sequence()).get();
    return new ChangelogRecord(BusinessKeyPartitioner.partition(keyBytes, partitions), key, state.encode(stored));
  }

  /** The record of an event-store entry already in store form ({@code key} from {@link #of}): its task's partition. */
  public ChangelogRecord of(byte[] key, byte[] value) {
    byte[] keyBytes = java.util.Arrays.copyOf(key, key.length - 8 * sequenceParts);
    return new ChangelogRecord(BusinessKeyPartitioner.partition(keyBytes, partitions), key, value);
  }
}
