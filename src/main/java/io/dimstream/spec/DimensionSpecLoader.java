package io.dimstream.spec;

import static io.dimstream.spec.SpecNodes.checkKnown;
import static io.dimstream.spec.SpecNodes.list;
import static io.dimstream.spec.SpecNodes.opt;
import static io.dimstream.spec.SpecNodes.text;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reads a dimension spec from YAML (the format docs/reference/spec.md documents) and validates it. */
public final class DimensionSpecLoader {
  private static final Set<String> TOP_LEVEL = Set.of("name", "columns", "schema", "key", "sequence", "track",
      "track_except", "delete", "format", "versions_format", "topics", "lateness_horizon", "output", "service",
      "missing_fields", "unavailable_value", "unknown_fields", "history", "soft_delete",
      "debezium", "derive", "skip_when", "source", "schema_registry");

  private DimensionSpecLoader() {}

  public static DimensionSpec load(Path file) {
    return parse(SpecYaml.readMapping(file, "dimension spec", "write 'name:', 'columns:', 'key:' and 'sequence:' at "
        + "the top level (see docs/reference/spec.md)"), file);
  }

  /** Parses an already-read YAML/JSON tree; {@code file} is only used in messages and to resolve relative paths. */
  public static DimensionSpec parse(JsonNode root, Path file) {
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!TOP_LEVEL.contains(f)) {
        throw SpecErrors.invalid(file, f, "unknown field", "remove it or use one of " + new java.util.TreeSet<>(TOP_LEVEL));
      }
    }
    String name = text(root, "name", file);
    if (PostgresSource.declaredIn(root)) {
      PostgresSource.parse(root.get("source"), name, file); // checked here; io.dimstream.source runs it
    }
    DimensionSpecBuilder b = DimensionSpec.builder(name).source(file);
    Path baseDir = file == null || file.toAbsolutePath().getParent() == null ? Path.of(".")
        : file.toAbsolutePath().getParent();
    Map<String, ColumnType> declaredTypes = new LinkedHashMap<>();
    if (root.has("columns") && root.has("schema")) {
      throw SpecErrors.invalid(file, "columns", "both 'columns' and 'schema' are given", "keep only one of them");
    }
    if (root.has("columns")) {
      JsonNode cols = root.get("columns");
      if (!cols.isObject() || cols.isEmpty()) {
        throw SpecErrors.invalid(file, "columns", "expected a mapping of column name to type", "write e.g. 'customer_id: long'");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = cols.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        try {
          b.column(e.getKey(), ColumnType.parse(e.getValue().asText()));
          declaredTypes.put(e.getKey(), ColumnType.parse(e.getValue().asText()));
        } catch (IllegalArgumentException ex) {
          throw SpecErrors.invalid(file, "columns." + e.getKey(), ex.getMessage(), "fix the type of '" + e.getKey() + "'");
        }
      }
    } else if (root.has("schema")) {
      String schemaRef = root.get("schema").asText();
      Path schemaFile = resolveSchema(baseDir, schemaRef);
      String schemaJson;
      try {
        schemaJson = Files.readString(schemaFile);
      } catch (IOException e) {
        throw SpecErrors.invalid(file, "schema", "cannot read " + schemaFile + ": " + e.getMessage(),
            "give the path of an Avro record schema (.avsc), relative to the spec file or the working directory");
      }
      for (Column c : AvroColumns.columns(schemaJson, file)) {
        b.column(c.name(), c.type());
        declaredTypes.put(c.name(), c.type());
      }
      b.avroSchema(schemaJson);
    }
    b.key(list(root, "key", file));
    InputFormat format = EventRules.inputFormat(root, file);
    List<String> sequence = list(root, "sequence", file);
    if (format.isDebezium()) {
      sequence = DebeziumSection.sequence(root, sequence, declaredTypes, b, file);
    } else if (root.has("debezium")) {
      throw SpecErrors.invalid(file, "debezium", "the option applies to Debezium envelopes, but the format is "
          + format.specName(), "set 'format: debezium-json', or remove 'debezium'");
    }
    b.sequence(sequence);
    if (root.has("track")) {
      b.track(list(root, "track", file));
    }
    if (root.has("track_except")) {
      b.trackExcept(list(root, "track_except", file));
    }
    b.inputFormat(format);
    if (root.has("schema_registry")) {
      b.schemaRegistry(SchemaRegistrySection.read(root.get("schema_registry"), file, System::getenv));
    }
    if (root.has("versions_format")) {
      String f = root.get("versions_format").asText().toLowerCase(Locale.ROOT);
      b.outputFormat(switch (f) {
        case "json" -> OutputFormat.JSON;
        case "avro" -> OutputFormat.AVRO;
        default -> throw SpecErrors.invalid(file, "versions_format", "unknown format '" + f + "'", "use json or avro");
      });
    }
    b.delete(format.isDebezium() && !root.has("delete") ? new DeleteRule.DebeziumOp()
        : EventRules.deleteRule(root.get("delete"), file));
    if (root.has("topics")) {
      JsonNode t = root.get("topics");
      checkKnown(t, "topics", Set.of("changes", "versions", "dlq", "changes_keyed_by_business_key"), file);
      Topics d = Topics.defaults(name);
      b.topics(new Topics(opt(t, "changes", d.changes()), opt(t, "versions", d.versions()), opt(t, "dlq", d.dlq()),
          changesKeyed(t, file)));
    }
    if (root.has("lateness_horizon")) {
      b.latenessHorizon(horizon(root.get("lateness_horizon"), sequence.isEmpty() ? "" : sequence.get(0), declaredTypes,
          file));
    }
    if (root.has("output")) {
      JsonNode o = root.get("output");
      checkKnown(o, "output", Set.of("valid_from", "valid_to", "is_current", "version_id", "table_properties"), file);
      OutputColumns d = OutputColumns.DEFAULT;
      b.output(new OutputColumns(opt(o, "valid_from", d.validFrom()), opt(o, "valid_to", d.validTo()),
          opt(o, "is_current", d.isCurrent()), opt(o, "version_id", null)));
      if (o.has("table_properties")) {
        b.tableProperties(tableProperties(o.get("table_properties"), file));
      }
    }
    b.history(history(root, file));
    b.service(ServiceSection.read(root.get("service"), name, file));
    b.fields(EventRules.fieldRules(root, file));
    b.expressions(EventRules.expressions(root, file));
    return b.build();
  }

  private static Path resolveSchema(Path baseDir, String ref) {
    Path p = Path.of(ref);
    if (p.isAbsolute() || Files.exists(p)) {
      return p;
    }
    return baseDir.resolve(ref);
  }

  /** {@code history: scd2|scd1} and {@code soft_delete: true|false} (scd1 only). */
  private static HistoryMode history(JsonNode root, Path file) {
    HistoryMode.Kind kind = HistoryMode.Kind.SCD2;
    if (root.has("history")) {
      String h = root.get("history").asText().toLowerCase(Locale.ROOT);
      kind = switch (h) {
        case "scd2" -> HistoryMode.Kind.SCD2;
        case "scd1" -> HistoryMode.Kind.SCD1;
        default -> throw SpecErrors.invalid(file, "history", "unknown history '" + h + "'",
            "use scd2 (full history, the default) or scd1 (one row per key, its latest state)");
      };
    }
    boolean soft = false;
    if (root.has("soft_delete")) {
      JsonNode n = root.get("soft_delete");
      if (!n.isBoolean()) {
        throw SpecErrors.invalid(file, "soft_delete", "expected true or false, got '" + n.asText() + "'",
            "write soft_delete: true to keep deleted rows with is_current = false");
      }
      soft = n.booleanValue();
      if (soft && kind != HistoryMode.Kind.SCD1) {
        throw SpecErrors.invalid(file, "soft_delete", "soft_delete applies to 'history: scd1' tables only",
            "add 'history: scd1', or remove soft_delete (an scd2 table always keeps deleted versions, closed)");
      }
    }
    return new HistoryMode(kind, soft);
  }

  private static boolean changesKeyed(JsonNode topics, Path file) {
    JsonNode n = topics.get("changes_keyed_by_business_key");
    if (n == null) {
      return false;
    }
    if (!n.isBoolean()) {
      throw SpecErrors.invalid(file, "topics.changes_keyed_by_business_key", "expected true or false, got '"
          + n.asText() + "'", "write true only when every producer keys each change record by its canonical business "
          + "key and partitions by Kafka's default (murmur2) partitioner, as `dimstream produce` does (docs/concepts.md, keyed changes topics)");
    }
    return n.booleanValue();
  }

  /** Timestamps count in microseconds and dates in days; a bare number is taken in the sequence's own units. */
  private static long horizon(JsonNode node, String firstSeq, Map<String, ColumnType> declaredTypes, Path file) {
    if (node.isIntegralNumber()) {
      return node.asLong();
    }
    String text = node.asText().trim();
    Duration d = Durations.parse(text).orElseThrow(() -> SpecErrors.invalid(file, "lateness_horizon",
        "cannot read '" + text + "' as a duration", "write e.g. 30d, 12h, 90m, PT36H, or a plain number in the "
        + "sequence's units"));
    // from the parsed columns, so a spec described by an Avro schema gets its sequence's real units
    ColumnType firstType = declaredTypes.get(firstSeq);
    String seqType = firstType == null ? "timestamp" : firstType.toString();
    if (seqType.equals("date")) {
      return Math.max(1, d.toDays());
    }
    if (seqType.equals("long") || seqType.equals("int")) {
      throw SpecErrors.invalid(file, "lateness_horizon", "the sequence '" + firstSeq + "' is a number, not a time",
          "give the horizon as a plain number in the sequence's units");
    }
    return d.toNanos() / 1000;
  }

  /** The mapping as text values: YAML's {@code false} or {@code 0.3} mean the same as the quoted text. */
  private static Map<String, String> tableProperties(JsonNode node, Path file) {
    if (!node.isObject()) {
      throw SpecErrors.invalid(file, "output.table_properties", "expected a mapping of property name to value",
          "write e.g. 'table_properties: {delta.enableDeletionVectors: \"false\"}'");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isValueNode() || e.getValue().isNull()) {
        throw SpecErrors.invalid(file, "output.table_properties." + e.getKey(), "expected a text value, got "
            + e.getValue(), "give the value as text, e.g. \"false\"");
      }
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }
}
