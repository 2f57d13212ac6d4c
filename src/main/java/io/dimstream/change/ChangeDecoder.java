package io.dimstream.change;

import io.dimstream.registry.HttpSchemaRegistry;
import io.dimstream.spec.DimensionSpec;
import java.time.Clock;
import java.util.Optional;

/**
 * Turns one record of a dimension's changes topic into a {@link io.dimstream.model.ChangeEvent}, or into a
 * {@link Decoded.Rejected} with a stable {@link RejectReason} code. A decoder never throws for bad input.
 *
 * <p>What every format shares: key and sequence columns are required (missing or null rejects the record);
 * attributes are nullable (a missing field is null); fields the spec does not declare are ignored; every declared
 * column is type-checked against the spec (see {@link io.dimstream.types.ColumnValues}). A delete event reads the
 * key, sequence and delete-rule columns; under {@code skip_when} it also carries the attribute columns its record
 * holds (type-checked; a missing one is null), which only the condition reads. A null value (Kafka tombstone) is a
 * delete of the record key's business key (and carries nothing else) when the delete rule is {@code tombstone},
 * {@link Decoded.Skipped} under {@code debezium} (Debezium writes one after each delete), and rejected as
 * {@code tombstone-not-a-delete} otherwise.
 * Text must be Unicode: malformed or overlong UTF-8 and unpaired surrogates are rejected as {@code bad-encoding}.
 *
 * <p>Implementations are immutable and thread-safe; build one per spec and reuse it for every record.
 */
public interface ChangeDecoder {

  /**
   * The decoder for the spec's input format: {@link JsonChangeDecoder}, {@link AvroChangeDecoder} (or
   * {@link RegistryAvroDecoder} under {@code schema_registry}), {@link DebeziumJsonDecoder} or
   * {@link DebeziumAvroDecoder}.
   *
   * @throws ChangeException when the spec's Avro schema cannot be decoded into its columns
   */
  static ChangeDecoder forSpec(DimensionSpec spec) {
    return switch (spec.inputFormat()) {
      case JSON -> new JsonChangeDecoder(spec);
      case AVRO -> spec.schemaRegistry() == null ? new AvroChangeDecoder(spec)
          : new RegistryAvroDecoder(spec, new HttpSchemaRegistry(spec.schemaRegistry(), Clock.systemUTC()));
      case DEBEZIUM_JSON -> new DebeziumJsonDecoder(spec);
      case DEBEZIUM_AVRO -> new DebeziumAvroDecoder(spec, new HttpSchemaRegistry(spec.schemaRegistry(),
          Clock.systemUTC()));
    };
  }

  /**
   * The decoder for records that the file loaders ({@code backfill}, {@code replay}) build from JSON lines or CSV
   * rows: as {@link #forSpec}, except that no file record passes through a schema registry: Avro is plain Avro with
   * the spec's schema, and Debezium envelopes are JSON.
   *
   * @throws ChangeException when the spec's Avro schema cannot be decoded into its columns
   */
  static ChangeDecoder forFiles(DimensionSpec spec) {
    return switch (spec.inputFormat()) {
      case AVRO -> new AvroChangeDecoder(spec);
      // a file holds envelopes as JSON lines, as Connect's JsonConverter writes them
      case DEBEZIUM_AVRO -> new DebeziumJsonDecoder(spec);
      default -> forSpec(spec);
    };
  }

  /**
   * Decodes one record.
   *
   * @param recordKey             the Kafka record key; may be null; read only for tombstones
   * @param value                 the Kafka record value; null means a tombstone
   * @param recordTimestampMillis the Kafka record timestamp; a tombstone's sequence when the spec's only sequence
   *                              column is a timestamp and the record key does not carry it; negative = none
   * @return never null
   */
  Decoded decode(byte[] recordKey, byte[] value, long recordTimestampMillis);

  /**
   * Why records wait right now instead of being decoded (a schema registry that does not answer); empty when none
   * do. Only decoders that read something besides the record can wait.
   */
  default Optional<String> outage() {
    return Optional.empty();
  }

  /** Ends every wait of {@link #decode} (with a {@link DecoderClosedException}) and releases connections. */
  default void close() {}
}
