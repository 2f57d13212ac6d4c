package io.dimstream.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.codec.VersionJson;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders versions and changes as rows, the one place query output is shaped. A version row is the line
 * {@code dimstream replay} prints: the key columns, the attributes (spec order), {@code valid_from},
 * {@code valid_to} (null while open), the extra validity columns of a composite sequence, then {@code is_current};
 * timestamps as ISO-8601 UTC strings. Output column names come from the spec. Immutable and thread-safe.
 */
public final class VersionRows {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final DimensionSpec spec;
  private final VersionJson replay;
  private final List<Column> keyColumns;
  private final List<Column> attributeColumns;
  private final List<Column> sequenceColumns;
  private final List<String> fromNames;
  private final List<String> toNames;

  public VersionRows(DimensionSpec spec) {
    this.spec = spec;
    this.replay = new VersionJson(spec);
    this.keyColumns = spec.keyColumns();
    this.attributeColumns = spec.attributeColumns();
    this.sequenceColumns = spec.sequenceColumns();
    List<String> from = new ArrayList<>(List.of(spec.output().validFrom()));
    from.addAll(spec.extraValidFromColumns());
    List<String> to = new ArrayList<>(List.of(spec.output().validTo()));
    to.addAll(spec.extraValidToColumns());
    this.fromNames = List.copyOf(from);
    this.toNames = List.copyOf(to);
  }

  /** Column names of a version row, in order. */
  public List<String> versionHeader() {
    List<String> h = new ArrayList<>();
    keyColumns.forEach(c -> h.add(c.name()));
    attributeColumns.forEach(c -> h.add(c.name()));
    h.add(fromNames.get(0));
    h.add(toNames.get(0));
    h.addAll(fromNames.subList(1, fromNames.size()));
    h.addAll(toNames.subList(1, toNames.size()));
    h.add(spec.output().isCurrent());
    if (spec.output().hasVersionId()) {
      h.add(spec.output().versionId());
    }
    return h;
  }

  /** The replay JSON object of a version ({@link VersionJson#row}). */
  public ObjectNode json(Version v) {
    return replay.row(v);
  }

  /** The cells of a version row as text, in {@link #versionHeader()} order; null values as empty strings. */
  public List<String> cells(Version v) {
    return cells(json(v));
  }

  /** The key columns of {@code key} as a JSON object. */
  public ObjectNode keyJson(BusinessKey key) {
    ObjectNode n = NODES.objectNode();
    putKey(n, key);
    return n;
  }

  /** Column names of a change row: key columns, {@code at}, {@code change}, {@code changed}. */
  public List<String> changeHeader() {
    List<String> h = new ArrayList<>();
    keyColumns.forEach(c -> h.add(c.name()));
    h.add("at");
    h.add("change");
    h.add("changed");
    return h;
  }

  /**
   * A change as JSON: the key columns, {@code at}, {@code change} ({@code insert|update|delete}), {@code changed}
   * (the attribute names that differ), and {@code before}/{@code after}: the closed and the opened version rows
   * (null when absent).
   */
  public ObjectNode json(Change c) {
    ObjectNode n = NODES.objectNode();
    putKey(n, c.key());
    n.set("at", part(c.at(), 0));
    n.put("change", c.kind().name().toLowerCase(Locale.ROOT));
    ArrayNode changed = n.putArray("changed");
    c.changed().forEach(changed::add);
    n.set("before", c.before() == null ? NODES.nullNode() : json(c.before()));
    n.set("after", c.after() == null ? NODES.nullNode() : json(c.after()));
    return n;
  }

  /**
   * A change as text cells in {@link #changeHeader()} order; {@code changed} reads
   * {@code city: Paris -> Lyon; tier: gold -> silver} (a missing side shows as {@code -}).
   */
  public List<String> cells(Change c) {
    List<String> out = new ArrayList<>();
    ObjectNode n = json(c);
    keyColumns.forEach(k -> out.add(text(n.get(k.name()))));
    out.add(text(n.get("at")));
    out.add(n.get("change").asText());
    StringBuilder b = new StringBuilder();
    for (String col : c.changed()) {
      b.append(b.length() == 0 ? "" : "; ").append(col).append(": ")
          .append(c.before() == null ? "-" : text(n.get("before").get(col))).append(" -> ")
          .append(c.after() == null ? "-" : text(n.get("after").get(col)));
    }
    out.add(b.toString());
    return out;
  }

  private List<String> cells(ObjectNode row) {
    List<String> out = new ArrayList<>();
    for (String h : versionHeader()) {
      out.add(text(row.get(h)));
    }
    return out;
  }

  private static String text(JsonNode n) {
    return n == null || n.isNull() ? "" : n.asText();
  }

  private void putKey(ObjectNode n, BusinessKey key) {
    for (int i = 0; i < keyColumns.size(); i++) {
      Column c = keyColumns.get(i);
      n.set(c.name(), ColumnValues.toJson(key.values().get(i), c.type()));
    }
  }

  private JsonNode part(Sequence s, int i) {
    Column c = sequenceColumns.get(i);
    return ColumnValues.toJson(ColumnValues.sequenceValue(s.part(i), c.type()), c.type());
  }
}
