package io.dimstream.enrich;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.dimstream.spec.InputFormat;
import io.dimstream.types.Column;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads fact records: a JSON object with the fact columns ({@code format: json}), or a Debezium envelope whose
 * {@code after} row holds them ({@code format: debezium-json}). Immutable and thread-safe.
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
  private final Set<String> required = new HashSet<>();

  public FactDecoder(EnrichmentSpec spec) {
    this.facts = spec.facts();
    required.addAll(facts.key());
    required.add(facts.time());
    required.addAll(spec.joinColumns());
  }

  public Result decode(byte[] value) {
    if (value == null) {
      return rejected("tombstone", "the fact record has no value; a fact cannot be deleted from the enriched stream");
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
      Object v;
      try {
        v = io.dimstream.types.ColumnValues.fromJson(row.get(c.name()), c.type());
      } catch (IllegalArgumentException e) {
        return rejected("bad-type:" + c.name(), "column '" + c.name() + "' (" + c.type() + "): " + e.getMessage());
      }
      if (v == null && required.contains(c.name())) {
        return rejected("missing-" + role(c.name()), "the fact has no value for '" + c.name() + "', its "
            + role(c.name()) + " column; a fact needs its key, its time and its join columns");
      }
      values.add(v);
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
