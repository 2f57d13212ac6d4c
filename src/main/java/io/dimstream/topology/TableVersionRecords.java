package io.dimstream.topology;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionRecordHeaders;
import io.dimstream.spec.DimensionSpec;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A table's rows as versions-topic records, as the topology would have written them (the same key, value, partition
 * and {@value DimensionTopology#CHANGE_HEADER} header), marked {@value io.dimstream.model.VersionRecordHeaders#FROM_TABLE}: a takeover
 * writes them to a versions topic that does not hold the table's history (a new cluster, a backfilled table), so its
 * readers (enrichments, downstream consumers) find every version there, while the compactor skips them. Not
 * thread-safe.
 */
public final class TableVersionRecords {
  private static final byte[] TRUE = "true".getBytes(StandardCharsets.UTF_8);

  private final EventJson json;
  private final VersionRecordCodec.RecordEncoder encoder;
  private final int partitions;
  private final java.util.OptionalInt schemaId;

  /** @param partitions the versions topic's partition count */
  public TableVersionRecords(DimensionSpec spec, int partitions) {
    this(spec, partitions, java.util.OptionalInt.empty());
  }

  /**
   * @param partitions the versions topic's partition count
   * @param schemaId   the registered version schema's id when records are framed in the Confluent wire format
   *                   ({@link io.dimstream.codec.WireFraming}), as the topology writes them
   */
  public TableVersionRecords(DimensionSpec spec, int partitions, java.util.OptionalInt schemaId) {
    this.json = new EventJson(spec);
    this.encoder = VersionRecordCodec.forSpec(spec).encoder();
    this.partitions = partitions;
    this.schemaId = schemaId;
  }

  /** One versions-topic record: where it goes, its key and value, and its two header values. */
  public record VersionRecord(int partition, byte[] key, byte[] value, byte[] change, byte[] fromTable) {
    /**
     * The record to send to {@code topic}. The marker is its last header: the compactor asks for it first, and Kafka
     * decodes header names from the last one back, so a replayed row costs the compactor one name.
     */
    public ProducerRecord<byte[], byte[]> toSend(String topic) {
      ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, partition, key, value);
      record.headers().add(DimensionTopology.CHANGE_HEADER, change).add(VersionRecordHeaders.FROM_TABLE, fromTable);
      return record;
    }
  }

  /** The record of {@code row}: an open version as opened, a closed one as closed. */
  public VersionRecord of(Version row) {
    ChangeKind kind = row.isCurrent() ? ChangeKind.OPEN : ChangeKind.CLOSE;
    int partition = BusinessKeyPartitioner.partition(json.keyBytes(row.key()), partitions);
    byte[] value = encoder.encodeValue(row, kind);
    if (schemaId.isPresent()) {
      value = io.dimstream.codec.WireFraming.frame(schemaId.getAsInt(), value);
    }
    return new VersionRecord(partition, encoder.encodeKey(row.key(), row.validFrom()), value,
        kind.wireName().getBytes(StandardCharsets.UTF_8), TRUE);
  }
}
