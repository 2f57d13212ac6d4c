package io.dimstream.enrich;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.codec.WireFraming;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.Durations;
import io.dimstream.spec.HistoryMode;
import io.dimstream.spec.InputFormat;
import io.dimstream.spec.OutputFormat;
import io.dimstream.spec.SpecException;
import io.dimstream.spec.SpecYaml;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.avro.AvroRuntimeException;

/** Reads an enrichment spec from YAML (docs/enrichment.md), loads the dimension spec it names, and validates both together. */
public final class EnrichmentSpecLoader {
  private static final Set<String> TOP_LEVEL = Set.of("name", "dimension", "facts", "join", "attributes",
      "found_column", "version_id", "valid_from", "output", "grace");
  private static final Set<String> FACTS = Set.of("topic", "format", "columns", "key", "time");
  private static final Set<String> OUTPUT = Set.of("topic", "dlq", "revision_column", "format");

  private EnrichmentSpecLoader() {}

  /** Loads {@code file} and the dimension spec it names (relative to {@code file}). */
  public static EnrichmentSpec load(Path file) {
    JsonNode root = SpecYaml.readMapping(file, "enrichment spec", "write 'name:', 'dimension:', 'facts:', 'join:' "
        + "and 'attributes:' at the top level (docs/enrichment.md)");
    Path dimensionFile = dimensionFile(root, file);
    DimensionSpec dimension;
    try {
      dimension = DimensionSpecLoader.load(dimensionFile);
    } catch (SpecException e) {
      throw EnrichmentErrors.dimensionUnusable(file, dimensionFile, e.getMessage());
    }
    return parse(root, file, dimension);
  }

  /** Parses an already-read tree against an already-loaded dimension; {@code file} is only used in messages. */
  public static EnrichmentSpec parse(JsonNode root, Path file, DimensionSpec dimension) {
    checkKnown(root, null, TOP_LEVEL, file);
    String name = text(root, "name", file);
    if (dimension.history().kind() != HistoryMode.Kind.SCD2) {
      throw EnrichmentErrors.invalid(file, "dimension", "the dimension '" + dimension.name() + "' keeps one row per "
          + "key (history: scd1), so it has no version as of a fact's time", "join with a dimension that keeps its "
          + "history (history: scd2, the default)");
    }
    EnrichmentSpec.Facts facts = facts(root.get("facts"), name, dimension, file);
    List<String> join = join(root.get("join"), facts, dimension, file);
    Set<String> taken = new LinkedHashSet<>();
    facts.columns().forEach(c -> taken.add(c.name()));
    List<EnrichmentSpec.Attribute> attributes = attributes(root.get("attributes"), facts, dimension, taken, file);
    String found = outputName(root, "found_column", dimension.name() + "_found", taken, file);
    String versionId = optionalColumn(root, "version_id", dimension.output().versionId(), taken, file);
    String validFrom = optionalColumn(root, "valid_from", dimension.output().validFrom(), taken, file);
    JsonNode output = root.get("output");
    if (output != null && !output.isObject()) {
      throw EnrichmentErrors.invalid(file, "output", "expected a mapping", "write e.g. output: {topic: orders.enriched}");
    }
    if (output != null) {
      checkKnown(output, "output", OUTPUT, file);
    }
    String revision = output == null ? EnrichmentSpec.DEFAULT_REVISION_COLUMN
        : outputName(output, "revision_column", EnrichmentSpec.DEFAULT_REVISION_COLUMN, taken, file);
    if (output == null) {
      claim(revision, "output.revision_column", taken, file);
    }
    String topic = output == null ? name + ".enriched" : optText(output, "topic", name + ".enriched", file);
    String dlq = output == null ? name + ".dlq" : optText(output, "dlq", name + ".dlq", file);
    if (topic.equals(facts.topic()) || topic.equals(dimension.topics().changes())
        || topic.equals(dimension.topics().versions())) {
      throw EnrichmentErrors.invalid(file, "output.topic", "the output topic '" + topic + "' is also read as input",
          "give the enriched facts a topic of their own (default: " + name + ".enriched)");
    }
    EnrichmentSpec spec = new EnrichmentSpec(name, file, dimension, facts, join, attributes, found, versionId,
        validFrom, revision, topic, outputFormat(output, dimension, file), dlq, grace(root.get("grace"), file));
    if (spec.outputFormat() == OutputFormat.AVRO) {
      checkAvroNames(spec, file);
    }
    return spec;
  }

  /**
   * {@code output.format}: by default the format of the dimension's versions topic when that is in the wire format
   * (one switch for every topic the service writes), else JSON; Avro only with the dimension's schema registry, which
   * holds the schema consumers read the records with.
   */
  private static OutputFormat outputFormat(JsonNode output, DimensionSpec dimension, Path file) {
    JsonNode n = output == null ? null : output.get("format");
    if (n == null || n.isNull()) {
      return WireFraming.versionsFramed(dimension) ? OutputFormat.AVRO : OutputFormat.JSON;
    }
    String f = n.asText().toLowerCase(Locale.ROOT);
    OutputFormat format = switch (f) {
      case "json" -> OutputFormat.JSON;
      case "avro" -> OutputFormat.AVRO;
      default -> throw EnrichmentErrors.invalid(file, "output.format", "unknown format '" + n.asText() + "'",
          "use json or avro");
    };
    if (format == OutputFormat.AVRO && dimension.schemaRegistry() == null) {
      throw EnrichmentErrors.invalid(file, "output.format", "avro writes the enriched records in the Confluent wire "
          + "format, whose schema lives in a schema registry, but the dimension '" + dimension.name() + "' names "
          + "none", "add schema_registry: {url: ...} to the dimension's spec, or write output.format: json");
    }
    return format;
  }

  /** Every output column must be a field name of the enriched records' Avro schema. */
  private static void checkAvroNames(EnrichmentSpec spec, Path file) {
    try {
      spec.enrichedAvroSchema();
    } catch (AvroRuntimeException e) {
      throw EnrichmentErrors.invalid(file, "output.format", "avro names each output column as a field, but "
          + e.getMessage(), "rename the column to letters, digits and _ (not starting with a digit), or write "
          + "output.format: json");
    }
  }

  private static Path dimensionFile(JsonNode root, Path file) {
    JsonNode n = root.get("dimension");
    if (n == null || !n.isTextual() || n.asText().isBlank()) {
      throw EnrichmentErrors.invalid(file, "dimension", "missing", "name the dimension's spec file, relative to this "
          + "one, e.g. dimension: customers.yaml");
    }
    Path p = Path.of(n.asText());
    Path base = file.toAbsolutePath().getParent();
    Path resolved = p.isAbsolute() || base == null ? p : base.resolve(p);
    if (!Files.isRegularFile(resolved)) {
      throw EnrichmentErrors.invalid(file, "dimension", "no file " + resolved, "give the path of the dimension's spec "
          + "file, relative to this file");
    }
    return resolved;
  }

  private static EnrichmentSpec.Facts facts(JsonNode node, String name, DimensionSpec dimension, Path file) {
    if (node == null || !node.isObject()) {
      throw EnrichmentErrors.invalid(file, "facts", "missing or not a mapping", "describe the facts, e.g. facts: "
          + "{topic: orders, columns: {order_id: long, customer_id: long, ordered_at: timestamp}, key: [order_id], "
          + "time: ordered_at}");
    }
    checkKnown(node, "facts", FACTS, file);
    String topic = text(node, "topic", file, "facts.topic");
    InputFormat format = format(node, file);
    JsonNode cols = node.get("columns");
    if (cols == null || !cols.isObject() || cols.isEmpty()) {
      throw EnrichmentErrors.invalid(file, "facts.columns", "expected a mapping of column name to type",
          "write e.g. columns: {order_id: long, ordered_at: timestamp}");
    }
    List<Column> columns = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = cols.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      try {
        columns.add(new Column(e.getKey(), ColumnType.parse(e.getValue().asText())));
      } catch (IllegalArgumentException ex) {
        throw EnrichmentErrors.invalid(file, "facts.columns." + e.getKey(), ex.getMessage(),
            "fix the type of '" + e.getKey() + "'");
      }
    }
    List<String> declared = columns.stream().map(Column::name).toList();
    List<String> key = list(node, "key", file, "facts.key");
    if (key.isEmpty()) {
      throw EnrichmentErrors.invalid(file, "facts.key", "missing", "list the columns that identify a fact (its "
          + "corrections replace its earlier record by this key), e.g. key: [order_id]");
    }
    for (String k : key) {
      declaredColumn(k, declared, "facts.key", file);
    }
    if (new LinkedHashSet<>(key).size() != key.size()) {
      throw EnrichmentErrors.invalid(file, "facts.key", "a column is listed twice in " + key, "list each column once");
    }
    String time = text(node, "time", file, "facts.time");
    declaredColumn(time, declared, "facts.time", file);
    ColumnType timeType = columns.get(declared.indexOf(time)).type();
    Column sequence = dimension.sequenceColumns().get(0);
    if (!sameTimeUnits(timeType, sequence.type())) {
      throw EnrichmentErrors.invalid(file, "facts.time", "the fact time '" + time + "' is a " + timeType
          + ", but the dimension '" + dimension.name() + "' orders its history by '" + sequence.name() + "', a "
          + sequence.type() + "; a fact's time must be comparable with valid_from", "declare '" + time + "' as "
          + sequence.type() + ", or join with a dimension whose first sequence column is a " + timeType);
    }
    return new EnrichmentSpec.Facts(topic, format, columns, key, time);
  }

  private static boolean sameTimeUnits(ColumnType fact, ColumnType sequence) {
    boolean factNumber = fact.kind() == ColumnType.Kind.LONG || fact.kind() == ColumnType.Kind.INT;
    boolean seqNumber = sequence.kind() == ColumnType.Kind.LONG || sequence.kind() == ColumnType.Kind.INT;
    return factNumber ? seqNumber : fact.kind() == sequence.kind()
        && (fact.kind() == ColumnType.Kind.TIMESTAMP || fact.kind() == ColumnType.Kind.DATE);
  }

  private static InputFormat format(JsonNode facts, Path file) {
    if (!facts.has("format")) {
      return InputFormat.JSON;
    }
    String f = facts.get("format").asText().toLowerCase(Locale.ROOT);
    return switch (f) {
      case "json" -> InputFormat.JSON;
      case "debezium-json", "debezium" -> InputFormat.DEBEZIUM_JSON;
      case "avro" -> InputFormat.AVRO;
      default -> throw EnrichmentErrors.invalid(file, "facts.format", "unknown format '" + f + "'",
          "use json, avro or debezium-json");
    };
  }

  /** The fact column of each dimension key column, in the dimension's key order. */
  private static List<String> join(JsonNode node, EnrichmentSpec.Facts facts, DimensionSpec dimension, Path file) {
    if (node == null || !node.isObject() || node.isEmpty()) {
      throw EnrichmentErrors.invalid(file, "join", "missing or not a mapping", "map each fact column to the "
          + "dimension key column it holds, e.g. join: {customer_id: " + dimension.key().get(0) + "}");
    }
    Map<String, String> byKeyColumn = new LinkedHashMap<>();
    List<String> declared = facts.columns().stream().map(Column::name).toList();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String factColumn = e.getKey();
      String keyColumn = e.getValue().asText();
      declaredColumn(factColumn, declared, "join." + factColumn, file);
      if (!dimension.key().contains(keyColumn)) {
        throw EnrichmentErrors.invalid(file, "join." + factColumn, "'" + keyColumn + "' is not a key column of the "
            + "dimension '" + dimension.name() + "'", "join on the dimension's key " + dimension.key()
            + ": a fact finds its version by the business key");
      }
      if (byKeyColumn.containsKey(keyColumn)) {
        throw EnrichmentErrors.invalid(file, "join." + factColumn, "the key column '" + keyColumn + "' is already "
            + "joined from '" + byKeyColumn.get(keyColumn) + "'", "map each dimension key column from one fact column");
      }
      ColumnType factType = facts.column(factColumn).type();
      ColumnType keyType = dimension.column(keyColumn).type();
      if (!sameKeyValues(factType, keyType)) {
        throw EnrichmentErrors.invalid(file, "join." + factColumn, "the fact column '" + factColumn + "' is a "
            + factType + " but the key column '" + keyColumn + "' is a " + keyType, "declare '" + factColumn + "' as "
            + keyType);
      }
      byKeyColumn.put(keyColumn, factColumn);
    }
    List<String> missing = dimension.key().stream().filter(k -> !byKeyColumn.containsKey(k)).toList();
    if (!missing.isEmpty()) {
      throw EnrichmentErrors.invalid(file, "join", "the dimension's key " + dimension.key() + " is not covered: no "
          + "fact column is joined to " + missing, "add a fact column for each key column, e.g. join: {<fact column>: "
          + missing.get(0) + "}");
    }
    return dimension.key().stream().map(byKeyColumn::get).toList();
  }

  private static boolean sameKeyValues(ColumnType fact, ColumnType key) {
    boolean factWhole = fact.kind() == ColumnType.Kind.LONG || fact.kind() == ColumnType.Kind.INT;
    boolean keyWhole = key.kind() == ColumnType.Kind.LONG || key.kind() == ColumnType.Kind.INT;
    return factWhole && keyWhole || fact.equals(key);
  }

  /** {@code [city, tier]}, {@code [city, {tier: customer_tier}]} or {@code {city: city, tier: customer_tier}}. */
  private static List<EnrichmentSpec.Attribute> attributes(JsonNode node, EnrichmentSpec.Facts facts,
      DimensionSpec dimension, Set<String> taken, Path file) {
    if (node == null || node.isNull()) {
      throw EnrichmentErrors.invalid(file, "attributes", "missing", "list the dimension attributes to add, e.g. "
          + "attributes: [" + String.join(", ", dimension.attributeColumns().stream().map(Column::name).toList())
          + "] (or attributes: [] for the found column alone)");
    }
    Map<String, String> renames = new LinkedHashMap<>();
    if (node.isArray()) {
      for (JsonNode item : node) {
        if (item.isTextual()) {
          putAttribute(renames, item.asText(), item.asText(), file);
        } else if (item.isObject() && item.size() == 1) {
          Map.Entry<String, JsonNode> e = item.fields().next();
          putAttribute(renames, e.getKey(), e.getValue().asText(), file);
        } else {
          throw EnrichmentErrors.invalid(file, "attributes", "cannot read " + item, "give an attribute name, or "
              + "{attribute: new_name} to rename it");
        }
      }
    } else if (node.isObject()) {
      node.fields().forEachRemaining(e -> putAttribute(renames, e.getKey(), e.getValue().asText(), file));
    } else {
      throw EnrichmentErrors.invalid(file, "attributes", "expected a list of attribute names",
          "write e.g. attributes: [city, {tier: customer_tier}]");
    }
    List<Column> dimensionAttributes = dimension.attributeColumns();
    List<String> attributeNames = dimensionAttributes.stream().map(Column::name).toList();
    List<EnrichmentSpec.Attribute> out = new ArrayList<>();
    for (Map.Entry<String, String> e : renames.entrySet()) {
      String attribute = e.getKey();
      int position = attributeNames.indexOf(attribute);
      if (position < 0) {
        String why = dimension.key().contains(attribute) ? "it is the dimension's key, which the fact already holds"
            : dimension.column(attribute) != null ? "it orders or marks the dimension's events; it is not a version "
            + "attribute" : "the dimension '" + dimension.name() + "' has no such column";
        throw EnrichmentErrors.invalid(file, "attributes." + attribute, "'" + attribute + "' cannot be added: " + why,
            "use attributes of the dimension: " + attributeNames);
      }
      String outputName = e.getValue();
      if (facts.column(outputName) != null) {
        throw EnrichmentErrors.invalid(file, "attributes." + attribute, "the attribute '" + attribute + "' would be "
            + "written as '" + outputName + "', which is already a fact column", "rename it, e.g. attributes: [{"
            + attribute + ": " + dimension.name() + "_" + attribute + "}]");
      }
      claim(outputName, "attributes." + attribute, taken, file);
      out.add(new EnrichmentSpec.Attribute(attribute, outputName, dimensionAttributes.get(position).type(), position));
    }
    return out;
  }

  private static void putAttribute(Map<String, String> renames, String attribute, String outputName, Path file) {
    if (outputName == null || outputName.isBlank()) {
      throw EnrichmentErrors.invalid(file, "attributes." + attribute, "the new name is empty", "give a column name");
    }
    if (renames.put(attribute, outputName) != null) {
      throw EnrichmentErrors.invalid(file, "attributes." + attribute, "listed twice", "list each attribute once");
    }
  }

  private static String outputName(JsonNode node, String field, String dflt, Set<String> taken, Path file) {
    JsonNode n = node.get(field);
    if (n != null && !n.isNull() && (!n.isTextual() || n.asText().isBlank())) {
      throw EnrichmentErrors.invalid(file, field, "expected a column name, got " + n, "give a column name");
    }
    String name = n == null || n.isNull() ? dflt : n.asText();
    claim(name, field, taken, file);
    return name;
  }

  /** {@code version_id: <column>}, or {@code true} for the dimension's own name of it; absent or false for none. */
  private static String optionalColumn(JsonNode root, String field, String dimensionName, Set<String> taken, Path file) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull() || n.isBoolean() && !n.booleanValue()) {
      return null;
    }
    String name;
    if (n.isBoolean()) {
      if (dimensionName == null) {
        throw EnrichmentErrors.invalid(file, field, "the dimension names no " + field + " column",
            "give the output column a name, e.g. " + field + ": customer_" + field);
      }
      name = dimensionName;
    } else if (n.isTextual() && !n.asText().isBlank()) {
      name = n.asText();
    } else {
      throw EnrichmentErrors.invalid(file, field, "expected a column name or true, got " + n,
          "give the output column a name, e.g. " + field + ": customer_" + field);
    }
    claim(name, field, taken, file);
    return name;
  }

  private static void claim(String name, String field, Set<String> taken, Path file) {
    if (!taken.add(name)) {
      throw EnrichmentErrors.invalid(file, field, "the output column '" + name + "' is already taken by a fact "
          + "column or another output column", "give it another name");
    }
  }

  private static Duration grace(JsonNode node, Path file) {
    if (node == null || node.isNull()) {
      return EnrichmentSpec.DEFAULT_GRACE;
    }
    String text = node.asText().trim();
    Duration d = Durations.parse(text).orElseThrow(() -> EnrichmentErrors.invalid(file, "grace",
        "cannot read '" + text + "' as a duration", "write e.g. 0s, 5s, 2m or PT30S"));
    if (d.isNegative()) {
      throw EnrichmentErrors.invalid(file, "grace", "a negative grace", "give 0s to emit facts at once, or more");
    }
    return d;
  }

  private static void declaredColumn(String column, List<String> declared, String field, Path file) {
    if (!declared.contains(column)) {
      throw EnrichmentErrors.invalid(file, field, "column '" + column + "' is not a fact column",
          "declare it under facts.columns or use one of " + declared);
    }
  }

  private static void checkKnown(JsonNode node, String prefix, Set<String> known, Path file) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        throw EnrichmentErrors.invalid(file, prefix == null ? f : prefix + "." + f, "unknown field",
            "remove it or use one of " + new TreeSet<>(known));
      }
    }
  }

  private static String text(JsonNode node, String field, Path file) {
    return text(node, field, file, field);
  }

  private static String text(JsonNode node, String field, Path file, String shown) {
    JsonNode n = node.get(field);
    if (n == null || n.isNull() || !n.isValueNode() || n.asText().isBlank()) {
      throw EnrichmentErrors.invalid(file, shown, "missing", "add '" + field + ":' to the spec");
    }
    return n.asText();
  }

  private static String optText(JsonNode node, String field, String dflt, Path file) {
    JsonNode n = node.get(field);
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isTextual() || n.asText().isBlank()) {
      throw EnrichmentErrors.invalid(file, "output." + field, "expected a topic name, got " + n, "give a topic name");
    }
    return n.asText();
  }

  private static List<String> list(JsonNode node, String field, Path file, String shown) {
    JsonNode n = node.get(field);
    if (n == null || n.isNull()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (n.isArray()) {
      n.forEach(x -> out.add(x.asText()));
    } else if (n.isTextual()) {
      out.add(n.asText());
    } else {
      throw EnrichmentErrors.invalid(file, shown, "expected a list of column names", "write e.g. " + field + ": [a, b]");
    }
    return out;
  }
}
