package io.dimstream.enrich;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.dimstream.change.AvroRows;
import io.dimstream.spec.InputFormat;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Reads fact records: a JSON object with the fact columns ({@code format: json}), a Debezium envelope whose
 * {@code after} row holds them ({@code format: debezium-json}), or an Avro record in plain binary encoding written
 * with {@link EnrichmentSpec#factsAvroSchema()} ({@code format: avro}, read by the changes' Avro reader,
 * {@link AvroRows}). A record given as parsed JSON (a line of a facts file) is a Debezium envelope under
 * {@code debezium-json}, else a JSON object with the fact columns. Immutable and thread-safe.
 */
public final class FactDecoder {
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  /** Why a fact record was not read: a stable reason code (for the dead-letter header) and a sentence. */
  public record Rejection(String reason, String detail) {}

  /** A decoded fact, or why not. */
  public sealed interface Result permits Accepted, Rejected {}

  public record Accepted(Fact fact) implements Result {}

  public record Rejected(Rejection rejection) implements Result {}

  private final EnrichmentSpec.Facts facts;
  private final Set<String> required;
  /** The Avro reader of {@code format: avro}, else null. */
  private final AvroRows avro;

  public FactDecoder(EnrichmentSpec spec) {
    this.facts = spec.facts();
    this.required = spec.requiredFactColumns();
    this.avro = facts.format() == InputFormat.AVRO
        ? new AvroRows(spec.factsAvroSchema(), facts.columns().toArray(new Column[0])) : null;
  }

  public Result decode(byte[] value) {
    if (value == null) {
      return rejected("tombstone", "the fact record has no value; a fact cannot be deleted from the enriched stream");
    }
    if (avro != null) {
      AvroRows.Row row = avro.read(value);
      if (row.rejected() != null) {
        return rejected(row.rejected().reason(), "the fact record is not an Avro record of the facts' schema: "
            + row.rejected().detail());
      }
      return checked(Arrays.asList(row.values()));
    }
    JsonNode root;
    try {
      root = JSON.readTree(value);
    } catch (IOException e) {
      return rejected("malformed-json", "the fact record is not JSON: " + e.getMessage());
    }
    return decode(root);
  }

  /** Decodes an already-parsed record (a line of a facts file, for instance). */
  public Result decode(JsonNode root) {
    if (root == null || !root.isObject()) {
      return rejected("malformed-json", "the fact record is not a JSON object");
    }
    JsonNode row = root;
    if (facts.format() == InputFormat.DEBEZIUM_JSON) {
      String op = root.path("op").asText("");
      if (op.equals("d") || root.path("after").isNull() || root.path("after").isMissingNode()) {
        return rejected("fact-delete", "the envelope deletes a fact (op '" + op + "'); deletes of facts are not "
            + "enriched");
      }
      row = root.get("after");
      if (!row.isObject()) {
        return rejected("malformed-json", "the envelope's 'after' is not an object");
      }
    }
    List<Object> values = new ArrayList<>(facts.columns().size());
    for (Column c : facts.columns()) {
      try {
        values.add(ColumnValues.fromJson(row.get(c.name()), c.type()));
      } catch (IllegalArgumentException e) {
        return rejected("bad-type:" + c.name(), "column '" + c.name() + "' (" + c.type() + "): " + e.getMessage());
      }
    }
    return checked(values);
  }

  /** The fact, unless a key, time or join column is null. */
  private Result checked(List<Object> values) {
    for (int i = 0; i < values.size(); i++) {
      String c = facts.columns().get(i).name();
      if (values.get(i) == null && required.contains(c)) {
        return rejected("missing-" + role(c), "the fact has no value for '" + c + "', its " + role(c) + " column; a "
            + "fact needs its key, its time and its join columns");
      }
    }
    return new Accepted(new Fact(values));
  }

  private String role(String column) {
    return facts.key().contains(column) ? "key" : column.equals(facts.time()) ? "time" : "join";
  }

  private static Rejected rejected(String reason, String detail) {
    return new Rejected(new Rejection(reason, detail));
  }
}
