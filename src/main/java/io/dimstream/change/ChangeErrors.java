package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import java.util.List;

/** Builds every rejection detail and every {@link ChangeException} of this package: what, where, and the fix. */
final class ChangeErrors {
  private static final int MAX_SHOWN = 80;

  private ChangeErrors() {}

  static RejectedRecord malformedJson(String what, String problem) {
    return new RejectedRecord(RejectReason.MALFORMED_JSON, "The " + what + " is not a single JSON object: " + problem
        + ". Send one JSON object per record, with nothing after it.");
  }

  /** @param framed whether the record follows a wire-format header (its writer schema is the registry's) */
  static RejectedRecord malformedAvro(String field, String fieldType, int offset, int length, String problem,
      boolean framed) {
    return new RejectedRecord(RejectReason.MALFORMED_AVRO, "Cannot read Avro field '" + field + "' (" + fieldType
        + ") at byte " + offset + " of " + length + ": " + problem + (framed
        ? ". The bytes after the wire-format header must be one record of the schema the header's id names."
        : ". Write records as plain Avro binary (no framing, no schema-registry prefix) with the spec's schema."));
  }

  static RejectedRecord trailingAvro(int offset, int length, boolean framed) {
    return new RejectedRecord(RejectReason.MALFORMED_AVRO, "The Avro record ends at byte " + offset + " but the value has "
        + length + " bytes" + (framed ? "; the value holds more than the one record of the schema its header names."
        : "; the value holds more than one record of the spec's schema, or was written with another"
        + " schema or framing. Write one record per value, plain Avro binary with the spec's schema."));
  }

  static RejectedRecord badEncoding(String what, String field, int offset, int length, String problem) {
    return new RejectedRecord(RejectReason.BAD_ENCODING, "The " + what + " is not valid UTF-8 at byte " + offset
        + " of " + length + (field.isEmpty() ? "" : " (field '" + field + "')") + ": " + problem
        + ". Send text as well-formed UTF-8; dimstream never stores text that is not Unicode.");
  }

  static RejectedRecord unpairedSurrogate(String what, String field, int offset, int length, char surrogate,
      int index) {
    return new RejectedRecord(RejectReason.BAD_ENCODING, "The " + what + "'s string at byte " + offset + " of "
        + length + (field.isEmpty() ? "" : " (field '" + field + "')") + String.format(
        " holds the unpaired surrogate \\u%04x at character %d: a legal JSON escape, but not Unicode text.", (int) surrogate,
        index) + " Escape characters outside the BMP as a high and a low surrogate pair, or send them as UTF-8.");
  }

  static RejectedRecord badEncodingAvro(String field, int offset, int length, String problem) {
    return new RejectedRecord(RejectReason.BAD_ENCODING, "Avro string field '" + field + "' is not valid UTF-8 at"
        + " byte " + offset + " of " + length + ": " + problem + ". Write strings as well-formed UTF-8.");
  }

  static RejectedRecord unpairedSurrogateInText(Column column, char surrogate, int index) {
    return new RejectedRecord(RejectReason.BAD_ENCODING, "Column '" + column.name() + "'" + String.format(
        " holds the unpaired surrogate \\u%04x at character %d, which is not Unicode text.", (int) surrogate, index)
        + " Send well-formed UTF-8.");
  }

  static RejectedRecord missingKey(Column column, List<String> key) {
    return new RejectedRecord(RejectReason.MISSING_KEY, "Key column '" + column.name() + "' is missing or null; every"
        + " event must carry the key columns " + key + ".");
  }

  static RejectedRecord tombstoneWithoutKey(List<String> key) {
    return new RejectedRecord(RejectReason.MISSING_KEY, "The tombstone has no record key; a tombstone deletes the"
        + " business key held in its record key (a JSON object of the key columns " + key + ", or a bare value for a"
        + " one-column key).");
  }

  static RejectedRecord tombstoneKeyNotAnObject(String recordKey, List<String> key) {
    return new RejectedRecord(RejectReason.MISSING_KEY, "The tombstone's record key is " + shown(recordKey)
        + ", not a JSON object; a composite key " + key + " needs an object such as {\"" + key.get(0) + "\": ...}.");
  }

  static RejectedRecord tombstoneKeyNotAValue(String recordKey, String keyColumn) {
    return new RejectedRecord(RejectReason.MISSING_KEY, "The tombstone's record key is " + shown(recordKey)
        + ", not a value of key column '" + keyColumn + "'.");
  }

  static RejectedRecord missingSequence(Column column, List<String> sequence) {
    return new RejectedRecord(RejectReason.MISSING_SEQUENCE, "Sequence column '" + column.name()
        + "' is missing or null; every event must carry the sequence columns " + sequence
        + " that order it among its key's events.");
  }

  static RejectedRecord missingSequence(String detail) {
    return new RejectedRecord(RejectReason.MISSING_SEQUENCE, detail);
  }

  static RejectedRecord badType(Column column, String problem) {
    return new RejectedRecord(RejectReason.BAD_TYPE, "Column '" + column.name() + "' must be a " + column.type() + ": "
        + problem + ".");
  }

  static RejectedRecord unknownField(String field, java.nio.file.Path spec) {
    return new RejectedRecord(RejectReason.UNKNOWN_FIELD, "Field " + shown(field) + " is not a column of the spec"
        + (spec == null ? "" : " " + spec) + " and 'unknown_fields' is reject; declare it under 'columns' to apply"
        + " it, or set 'unknown_fields: warn' or 'ignore' to accept such events.");
  }

  static RejectedRecord unknownDebeziumOp(String op) {
    return new RejectedRecord(RejectReason.UNKNOWN_DEBEZIUM_OP, op == null
        ? "The Debezium envelope has no 'op' field; expected op c, u, r (upserts) or d (delete)."
        : "The Debezium envelope's field 'op' is " + shown(op) + "; expected c, u, r (upserts) or d (delete).");
  }

  static RejectedRecord missingDebeziumRow(String op, String field) {
    return new RejectedRecord(RejectReason.MISSING_KEY, "The Debezium envelope with op '" + op + "' has no '" + field
        + "' object to take the key from; a" + ("d".equals(op) ? " delete needs 'before'" : "n upsert needs 'after'")
        + " (for deletes, set the table's replica identity so 'before' holds the key columns).");
  }

  static RejectedRecord debeziumDeleteSequence(Column column) {
    return new RejectedRecord(RejectReason.MISSING_SEQUENCE, "The Debezium delete carries sequence column '"
        + column.name() + "' neither at the envelope's top level nor in 'source'; a delete takes its sequence from"
        + " the envelope, because its 'before' row holds the sequence of the previous change. Use an envelope field"
        + " such as ts_ms, or a source field such as lsn, as the sequence.");
  }

  static RejectedRecord missingSourceField(Column column, JsonNode connector) {
    return new RejectedRecord(RejectReason.MISSING_SEQUENCE, "Sequence field '" + column.name() + "' is missing or"
        + " null in the Debezium envelope's 'source' block" + (connector == null ? "" : " (source.connector is "
        + shown(connector.asText()) + ")") + "; the spec orders events by it. Order by fields this connector writes"
        + " (debezium: {connector: ..} picks them), or check the connector's version.");
  }

  static RejectedRecord tombstoneNotADelete(DeleteRule rule) {
    return new RejectedRecord(RejectReason.TOMBSTONE_NOT_A_DELETE, "The record has a null value (a Kafka tombstone),"
        + " but the spec's delete rule is " + ruleName(rule) + "; set 'delete: tombstone' to treat tombstones as"
        + " deletes, or stop producing them (Debezium: tombstones.on.delete=false).");
  }

  static RejectedRecord tombstoneWithoutSequence(List<String> sequence) {
    return missingSequence("The tombstone's record key does not carry the sequence columns " + sequence
        + ", and the record timestamp can stand in only for a single timestamp sequence column. Put the sequence"
        + " columns into the record key object.");
  }

  static ChangeException unusableAvroColumn(DimensionSpec spec, String field, String avroType) {
    return new ChangeException(where(spec) + ": field 'schema." + field + "': Avro type " + avroType
        + " cannot hold a value of column '" + field + "'. Fix: use long, int, double, float, boolean, string, enum,"
        + " decimal, date or timestamp-millis/micros, or keep the field out of the spec's columns.");
  }

  static ChangeException unusableAvroSchema(DimensionSpec spec, String problem) {
    return new ChangeException(where(spec) + ": field 'schema': " + problem
        + ". Fix: give an Avro record schema (.avsc) with 'schema:' and 'format: avro'.");
  }

  static String shown(String text) {
    String s = text.length() > MAX_SHOWN ? text.substring(0, MAX_SHOWN - 3) + "..." : text;
    return "\"" + s + "\"";
  }

  private static String ruleName(DeleteRule rule) {
    if (rule instanceof DeleteRule.ColumnEquals c) {
      return "{column: " + c.column() + ", equals: " + c.equals() + "}";
    }
    if (rule instanceof DeleteRule.BooleanColumn b) {
      return "{column: " + b.column() + "}";
    }
    if (rule instanceof DeleteRule.DebeziumOp) {
      return "debezium";
    }
    return "none";
  }

  private static String where(DimensionSpec spec) {
    return spec.source() == null ? "dimension spec '" + spec.name() + "'" : spec.source().toString();
  }

  static RejectedRecord shortWireHeader(int length) {
    return new RejectedRecord(RejectReason.BAD_MAGIC_BYTE, "The value has " + length + " bytes, fewer than the 5 of"
        + " the Confluent wire format's header (magic byte 0, then a 4-byte schema id). Produce with a"
        + " schema-registry serializer, or remove schema_registry from the spec for plain Avro.");
  }

  static RejectedRecord badMagicByte(int magic) {
    return new RejectedRecord(RejectReason.BAD_MAGIC_BYTE, "The value starts with byte " + magic + ", not the magic"
        + " byte 0 of the Confluent wire format" + (magic == '{' ? " (it looks like JSON)" : "") + ". Produce with a"
        + " schema-registry serializer (Avro), or read this topic with another format.");
  }

  static RejectedRecord unknownSchemaId(String registryMessage) {
    return new RejectedRecord(RejectReason.UNKNOWN_SCHEMA_ID, registryMessage);
  }

  static RejectedRecord notAvroSchema(int id, String type) {
    return new RejectedRecord(RejectReason.UNRESOLVABLE_SCHEMA, "Schema " + id + " is a " + type + " schema; the avro"
        + " format reads Avro records only (JSON Schema and Protobuf in the wire format are not supported). Produce"
        + " this topic with an Avro serializer.");
  }

  static RejectedRecord unresolvableSchema(int id, String problem) {
    return new RejectedRecord(RejectReason.UNRESOLVABLE_SCHEMA, "Writer schema " + id + " cannot be read as the spec's"
        + " columns under Avro's resolution rules: " + problem + ". Give the field a default in the spec's schema,"
        + " keep it in the writer schema, or change the column's type to one the writer's type promotes to.");
  }

  static RejectedRecord notAnEnvelope(int id, String name) {
    return new RejectedRecord(RejectReason.UNRESOLVABLE_SCHEMA, "Writer schema " + id + " (" + name + ") is no"
        + " Debezium envelope: it lacks the field 'op', or both 'before' and 'after'. The debezium-avro format reads"
        + " what Kafka Connect's AvroConverter writes for a Debezium connector; read other Avro records with"
        + " 'format: avro'.");
  }

  static RejectedRecord malformedEnvelope(int id, String problem) {
    return new RejectedRecord(RejectReason.MALFORMED_AVRO, "Cannot read the Debezium envelope of writer schema " + id
        + ": " + problem + ". The bytes after the wire-format header must be one Avro record of that schema.");
  }
}
