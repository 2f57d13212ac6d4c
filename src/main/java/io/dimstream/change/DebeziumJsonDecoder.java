package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.config.Column;
import io.dimstream.config.DimensionSpec;

/**
 * Decodes a Debezium JSON change envelope: {@code {"before": {..}, "after": {..}, "op": "u", "ts_ms": ..,
 * "source": {..}}}, bare or wrapped as {@code {"schema": .., "payload": {..}}} (JsonConverter with schemas).
 *
 * <ul>
 *   <li>{@code op} c (create), u (update), r (snapshot read): an upsert read from {@code after} (unless the spec's
 *       column delete rule, applied to {@code after}, says delete);</li>
 *   <li>{@code op} d: a delete whose key is read from {@code before};</li>
 *   <li>any other {@code op} (or none): rejected as {@code unknown-debezium-op}.</li>
 * </ul>
 *
 * <p>A sequence column is looked up first at the envelope's top level (e.g. {@code ts_ms}), then in
 * {@code source} (e.g. {@code lsn}), then in the row. A delete takes its sequence from the envelope or
 * {@code source} only: its {@code before} row holds the sequence of the previous change, so a delete whose
 * sequence columns are only row columns is rejected as {@code missing-sequence}. Thread-safe.
 */
public final class DebeziumJsonDecoder implements ChangeDecoder {
  private final EventAssembler assembler;
  private final Column[] columns;
  private final boolean[] isSequence;

  public DebeziumJsonDecoder(DimensionSpec spec) {
    this.assembler = new EventAssembler(spec);
    this.columns = assembler.columns();
    this.isSequence = new boolean[columns.length];
    for (String s : spec.sequence()) {
      isSequence[assembler.indexOf(s)] = true;
    }
  }

  @Override
  public Decoded decode(byte[] recordKey, byte[] value, long recordTimestampMillis) {
    if (value == null) {
      return assembler.tombstone(recordKey, recordTimestampMillis, JsonRecords.READER);
    }
    try {
      JsonNode envelope = JsonRecords.object(value, "Debezium envelope");
      JsonNode payload = envelope.get("payload");
      if (!envelope.has("op") && payload != null && payload.isObject()) {
        envelope = payload;
      }
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
      return new Decoded.Accepted(assembler.assemble(i -> {
        Column c = columns[i];
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
        return EventAssembler.typed(row.get(c.name()), c);
      }, delete));
    } catch (RejectedRecord r) {
      return r.toDecoded();
    }
  }

  private static JsonNode present(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode() ? null : n;
  }
}
