package io.dimstream.enrich;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the facts an enrichment keeps were written with, from its spec: the dimension columns of the attributes a
 * fact's last record showed, in order, the fact columns, and what places a fact in the store (its key, time and join
 * columns). Kept in one record of the enrichment's state, so that a restart under a changed spec knows how the facts
 * it kept were written (the dimension's own evolution is the table's to record, not this). Immutable.
 *
 * @param attributes  the dimension columns of the added attributes, in the spec's order
 * @param factColumns the fact columns, in order
 * @param factKey     the fact key columns
 * @param time        the fact time column
 * @param join        the fact columns that give the business key
 */
record EnrichmentLayout(List<String> attributes, List<Column> factColumns, List<String> factKey, String time,
    List<String> join) {
  private static final ObjectMapper JSON = new ObjectMapper();

  EnrichmentLayout {
    attributes = List.copyOf(attributes);
    factColumns = List.copyOf(factColumns);
    factKey = List.copyOf(factKey);
    join = List.copyOf(join);
  }

  static EnrichmentLayout of(EnrichmentSpec spec) {
    return new EnrichmentLayout(spec.attributes().stream().map(EnrichmentSpec.Attribute::dimensionColumn).toList(),
        spec.facts().columns(), spec.facts().key(), spec.facts().time(), spec.joinColumns());
  }

  /**
   * Why facts kept under this layout cannot be read and placed as {@code now}'s, or null when they can: the same
   * fact columns in the same order, each of the same type or widened ({@link ColumnType#widensTo}), and the same key,
   * time and join columns. The attributes may differ: they are followed by name.
   */
  String factsUnreadableAs(EnrichmentLayout now) {
    if (!names(factColumns).equals(names(now.factColumns))) {
      return "the fact columns were " + names(factColumns) + " and are now " + names(now.factColumns);
    }
    for (int i = 0; i < factColumns.size(); i++) {
      ColumnType was = factColumns.get(i).type();
      ColumnType is = now.factColumns.get(i).type();
      if (!was.equals(is) && !was.widensTo(is)) {
        return "the fact column '" + factColumns.get(i).name() + "' was " + was + " and is now " + is
            + " (only int to long and a decimal's precision up read the kept values unchanged)";
      }
    }
    if (!factKey.equals(now.factKey) || !time.equals(now.time) || !join.equals(now.join)) {
      return "the facts were kept by key " + factKey + ", time " + time + " and join " + join + ", now " + now.factKey
          + ", " + now.time + " and " + now.join;
    }
    return null;
  }

  byte[] toBytes() {
    ObjectNode n = JSON.createObjectNode();
    ArrayNode attrs = n.putArray("attributes");
    attributes.forEach(attrs::add);
    ArrayNode facts = n.putArray("facts");
    factColumns.forEach(c -> facts.addArray().add(c.name()).add(c.type().toString()));
    ArrayNode key = n.putArray("key");
    factKey.forEach(key::add);
    n.put("time", time);
    ArrayNode joins = n.putArray("join");
    join.forEach(joins::add);
    try {
      return JSON.writeValueAsBytes(n);
    } catch (IOException e) {
      throw new IllegalStateException("cannot render an enrichment layout", e);
    }
  }

  /**
   * @throws IllegalArgumentException when {@code bytes} are not a layout {@link #toBytes} wrote
   */
  static EnrichmentLayout parse(byte[] bytes) {
    try {
      JsonNode n = JSON.readTree(bytes);
      List<Column> columns = new ArrayList<>();
      for (JsonNode c : n.required("facts")) {
        columns.add(new Column(c.get(0).asText(), ColumnType.parse(c.get(1).asText())));
      }
      return new EnrichmentLayout(texts(n.required("attributes")), columns, texts(n.required("key")),
          n.required("time").asText(), texts(n.required("join")));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not an enrichment layout record: " + e.getMessage(), e);
    }
  }

  private static List<String> names(List<Column> columns) {
    return columns.stream().map(Column::name).toList();
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(t -> out.add(t.asText()));
    return out;
  }
}
