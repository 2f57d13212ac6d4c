package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.spec.DebeziumOrder;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import java.util.List;

/**
 * Decodes a Debezium JSON change envelope: {@code {"before": {..}, "after": {..}, "op": "u", "ts_ms": ..,
 * "source": {..}}}, bare or wrapped as {@code {"schema": .., "payload": {..}}} (JsonConverter with schemas).
 *
 * <ul>
 *   <li>{@code op} c (create), u (update), r (snapshot read): an upsert read from {@code after} (unless the spec's
 *       column delete rule, applied to {@code after}, says delete);</li>
 *   <li>{@code op} d: a delete whose key is read from {@code before}; under {@code skip_when} it carries the
 *       columns {@code before} holds (all of them under REPLICA IDENTITY FULL, else the key only);</li>
 *   <li>any other {@code op} (or none): rejected as {@code unknown-debezium-op}.</li>
 * </ul>
 *
 * <p>A sequence column named {@code source.<field>} ({@code source.lsn}, {@code source.file}) is read from the
 * envelope's {@code source} block only (see {@link DebeziumOrder}); a MySQL binlog {@code file} orders by its index
 * and a SQL Server {@code change_lsn}/{@code commit_lsn} is packed into a long. Any other sequence column is looked
 * up first at the envelope's top level (e.g. {@code ts_ms}), then in
 * {@code source} (e.g. {@code lsn}), then in the row. A delete takes its sequence from the envelope or
 * {@code source} only: its {@code before} row holds the sequence of the previous change, so a delete whose
 * sequence columns are only row columns is rejected as {@code missing-sequence}. Thread-safe.
 */
public final class DebeziumJsonDecoder implements ChangeDecoder {
  private static final Decoded.Skipped TOMBSTONE_AFTER_DELETE = new Decoded.Skipped("a Debezium tombstone follows"
      + " each delete (tombstones.on.delete=true); the delete before it already closed the key");

  private final EventAssembler assembler;
  /** Under {@code delete: debezium} a tombstone only follows a delete: skip it rather than dead-letter it. */
  private final boolean debeziumDeletes;
  private final Column[] columns;
  private final boolean[] isSequence;
  /** Per column: the field of {@code source} it is read from ({@code lsn} for {@code source.lsn}), else null. */
  private final String[] sourceField;
  private final String firstSequence;

  public DebeziumJsonDecoder(DimensionSpec spec) {
    this.assembler = new EventAssembler(spec);
    this.columns = assembler.columns();
    this.isSequence = new boolean[columns.length];
    this.sourceField = new String[columns.length];
    for (String s : spec.sequence()) {
      int i = assembler.indexOf(s);
      isSequence[i] = true;
      sourceField[i] = DebeziumOrder.isSourceField(s) ? DebeziumOrder.sourceField(s) : null;
    }
    this.firstSequence = spec.sequence().get(0);
    this.debeziumDeletes = spec.deleteRule() instanceof DeleteRule.DebeziumOp;
  }

  @Override
  public Decoded decode(byte[] recordKey, byte[] value, long recordTimestampMillis) {
    if (value == null) {
      return tombstone(recordKey, recordTimestampMillis);
    }
    try {
      JsonNode envelope = JsonRecords.object(value, "Debezium envelope");
      JsonNode payload = envelope.get("payload");
      if (!envelope.has("op") && payload != null && payload.isObject()) {
        envelope = payload;
      }
      return envelope(envelope);
    } catch (RejectedRecord r) {
      return r.toDecoded();
    }
  }

  /** One envelope already read (from JSON, or from Avro by {@link DebeziumAvroDecoder}). */
  Decoded envelope(JsonNode envelope) throws RejectedRecord {
    JsonNode opNode = envelope.get("op");
    String op = opNode == null || opNode.isNull() ? null : opNode.asText();
    boolean delete;
    String rowField;
    if ("d".equals(op)) {
      delete = true;
      rowField = "before";
    } else if ("c".equals(op) || "u".equals(op) || "r".equals(op)) {
      delete = false;
      rowField = "after";
    } else {
      throw ChangeErrors.unknownDebeziumOp(op);
    }
    JsonNode row = envelope.get(rowField);
    if (row == null || !row.isObject()) {
      throw ChangeErrors.missingDebeziumRow(op, rowField);
    }
    JsonNode env = envelope;
    JsonNode source = envelope.path("source");
    // a delete's before row locates the key (and is what skip_when judges it by): its other fields are not applied
    List<String> unknown = delete ? List.of() : assembler.unknownFields(row);
    return new Decoded.Accepted(assembler.assemble(i -> {
      Column c = columns[i];
      if (sourceField[i] != null) {
        return fromSource(source, sourceField[i], c, "r".equals(op));
      }
      if (isSequence[i]) {
        JsonNode v = present(env.get(c.name()));
        if (v == null) {
          v = present(source.get(c.name()));
        }
        if (v == null && delete) {
          throw ChangeErrors.debeziumDeleteSequence(c);
        }
        return EventAssembler.typed(v == null ? row.get(c.name()) : v, c);
      }
      return assembler.field(row.get(c.name()), c);
    }, delete), unknown);
  }

  /** What a Kafka tombstone means under the spec's delete rule. */
  Decoded tombstone(byte[] recordKey, long recordTimestampMillis) {
    if (debeziumDeletes) {
      return TOMBSTONE_AFTER_DELETE;
    }
    return assembler.tombstone(recordKey, recordTimestampMillis, JsonRecords.READER);
  }

  /**
   * A {@code source.*} sequence column. A snapshot read ({@code op: r}) lacks the later position fields (SQL Server's
   * change_lsn, MySQL's row may be absent): they read as 0, so a snapshot row sorts before the changes committed at
   * the same position.
   */
  private Object fromSource(JsonNode source, String field, Column c, boolean snapshot) throws RejectedRecord {
    JsonNode v = present(source.get(SourcePositions.envelopeField(field)));
    if (v == null) {
      if (snapshot && !c.name().equals(firstSequence)) {
        return 0L;
      }
      throw ChangeErrors.missingSourceField(c, present(source.get("connector")));
    }
    if (SourcePositions.isSpecial(field) && (v.isTextual() || v.isArray())) {
      return SourcePositions.read(field, v, c);
    }
    return EventAssembler.typed(v, c);
  }

  private static JsonNode present(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode() ? null : n;
  }
}
