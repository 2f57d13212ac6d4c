package io.dimstream.change;

import java.util.List;

/**
 * The stable reason codes of rejected records: the value of the {@code dimstream.error} header on the dead-letter
 * topic. Codes never change once released; users filter and alert on them.
 */
public final class RejectReason {
  /** The value is not one JSON object: broken JSON, a non-object, or bytes after the object. */
  public static final String MALFORMED_JSON = "malformed-json";
  /** The value is not one Avro record of the spec's schema: too short, trailing bytes, or invalid encoding. */
  public static final String MALFORMED_AVRO = "malformed-avro";
  /**
   * Text that is not Unicode: malformed, truncated or overlong UTF-8, an encoded surrogate, or a JSON
   * {@code \}{@code u} escape that leaves a surrogate unpaired. The detail names the field and the byte offset.
   */
  public static final String BAD_ENCODING = "bad-encoding";
  /** A key column is missing or null (for a tombstone: the record key is missing or lacks a key column). */
  public static final String MISSING_KEY = "missing-key";
  /** A sequence column is missing or null. */
  public static final String MISSING_SEQUENCE = "missing-sequence";
  /** A column holds a value that does not fit its declared type. */
  public static final String BAD_TYPE = "bad-type";
  /** A Debezium envelope whose {@code op} is not one of c, u, r, d. */
  public static final String UNKNOWN_DEBEZIUM_OP = "unknown-debezium-op";
  /** A Kafka tombstone (null value) while the delete rule is not {@code tombstone}. */
  public static final String TOMBSTONE_NOT_A_DELETE = "tombstone-not-a-delete";
  /** An event older than the key's newest sequence minus the lateness horizon; set by the topology. */
  public static final String BEYOND_LATENESS_HORIZON = "beyond-lateness-horizon";
  /**
   * A change record larger than {@code service.max_record_bytes} (default: the changes topic's
   * {@code max.message.bytes}), or one whose decoded event would be; set by the topology. The dead-letter copy keeps
   * the key and headers and as much of the value as fits.
   */
  public static final String TOO_LARGE = "too-large";
  /**
   * A spec expression ({@code derive}, {@code delete.when}, {@code skip_when}) failed on the event, or gave a value
   * that does not fit its column; set by the topology. The detail names the field and the expression.
   */
  public static final String EXPRESSION_ERROR = "expression-error";
  /**
   * A record that made dimstream itself fail (a bug, not bad input): sent to the DLQ so the service keeps running;
   * the log has the stack trace. Set by the topology.
   */
  public static final String PROCESSING_ERROR = "processing-error";
  /** A field that is not a declared column, under {@code unknown_fields: reject}. */
  public static final String UNKNOWN_FIELD = "unknown-field";
  /** A record with the {@code dimstream.control} header that is no readable end-of-snapshot marker. */
  public static final String BAD_CONTROL_RECORD = "bad-control-record";
  /**
   * Under {@code topics.changes_keyed_by_business_key: true}, a record whose canonical business key belongs in
   * another changes-topic partition than the one it arrived in; set by the topology, which never applies it. The
   * detail names the key, both partitions and the fix.
   */
  public static final String WRONG_PARTITION = "wrong-partition";

  /**
   * A record in the Confluent wire format (under {@code schema_registry}) whose first byte is not 0, or that is
   * shorter than the 5-byte header (magic byte and schema id).
   */
  public static final String BAD_MAGIC_BYTE = "bad-magic-byte";
  /** A wire-format record naming a schema id the registry answers it does not hold (HTTP 404). */
  public static final String UNKNOWN_SCHEMA_ID = "unknown-schema-id";
  /**
   * A wire-format record whose writer schema Avro's resolution rules cannot read as the spec's columns (a key or
   * sequence field it lacks, a type that does not promote), or that is no Avro schema. The detail names the field.
   */
  public static final String UNRESOLVABLE_SCHEMA = "unresolvable-schema";

  /** Every code, in the order above. */
  public static final List<String> ALL = List.of(MALFORMED_JSON, MALFORMED_AVRO, BAD_ENCODING, MISSING_KEY,
      MISSING_SEQUENCE, BAD_TYPE, UNKNOWN_DEBEZIUM_OP, TOMBSTONE_NOT_A_DELETE, BEYOND_LATENESS_HORIZON, TOO_LARGE,
      EXPRESSION_ERROR, PROCESSING_ERROR, UNKNOWN_FIELD, BAD_CONTROL_RECORD, WRONG_PARTITION,
      BAD_MAGIC_BYTE, UNKNOWN_SCHEMA_ID, UNRESOLVABLE_SCHEMA);

  private RejectReason() {}
}
