package io.dimstream.spec;

import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Assembles and validates a {@link DimensionSpec}; used by the YAML loader and by tests. */
public final class DimensionSpecBuilder {
  private final String name;
  private Path source;
  private final List<Column> columns = new ArrayList<>();
  private List<String> key = List.of();
  private List<String> sequence = List.of();
  private List<String> track;
  private List<String> trackExcept;
  private DeleteRule deleteRule = new DeleteRule.None();
  private InputFormat inputFormat = InputFormat.JSON;
  private OutputFormat outputFormat = OutputFormat.JSON;
  private Topics topics;
  private Long latenessHorizon;
  private OutputColumns output = OutputColumns.DEFAULT;
  private String avroSchema;
  private ServiceSettings service;
  private FieldRules fields = FieldRules.DEFAULT;
  private Expressions expressions = Expressions.NONE;
  private HistoryMode history = HistoryMode.SCD2;
  private Map<String, String> tableProperties = Map.of();
  private SchemaRegistrySettings schemaRegistry;

  DimensionSpecBuilder(String name) {
    this.name = name;
  }

  public DimensionSpecBuilder source(Path file) { this.source = file; return this; }
  public DimensionSpecBuilder column(String columnName, ColumnType type) { columns.add(new Column(columnName, type)); return this; }
  public DimensionSpecBuilder column(String columnName, String type) { return column(columnName, ColumnType.parse(type)); }
  public DimensionSpecBuilder key(String... cols) { this.key = List.of(cols); return this; }
  public DimensionSpecBuilder key(List<String> cols) { this.key = List.copyOf(cols); return this; }
  public DimensionSpecBuilder sequence(String... cols) { this.sequence = List.of(cols); return this; }
  public DimensionSpecBuilder sequence(List<String> cols) { this.sequence = List.copyOf(cols); return this; }
  public DimensionSpecBuilder track(List<String> cols) { this.track = cols; return this; }
  public DimensionSpecBuilder track(String... cols) { return track(List.of(cols)); }
  public DimensionSpecBuilder trackExcept(List<String> cols) { this.trackExcept = cols; return this; }
  public DimensionSpecBuilder delete(DeleteRule rule) { this.deleteRule = rule; return this; }
  public DimensionSpecBuilder inputFormat(InputFormat f) { this.inputFormat = f; return this; }
  public DimensionSpecBuilder outputFormat(OutputFormat f) { this.outputFormat = f; return this; }
  public DimensionSpecBuilder topics(Topics t) { this.topics = t; return this; }
  public DimensionSpecBuilder latenessHorizon(long units) { this.latenessHorizon = units; return this; }
  public DimensionSpecBuilder output(OutputColumns o) { this.output = o; return this; }
  public DimensionSpecBuilder avroSchema(String schemaJson) { this.avroSchema = schemaJson; return this; }
  public DimensionSpecBuilder service(ServiceSettings s) { this.service = s; return this; }
  public DimensionSpecBuilder fields(FieldRules f) { this.fields = f; return this; }
  public DimensionSpecBuilder expressions(Expressions e) { this.expressions = e; return this; }
  public DimensionSpecBuilder history(HistoryMode h) { this.history = h; return this; }
  public DimensionSpecBuilder tableProperties(Map<String, String> p) { this.tableProperties = Map.copyOf(p); return this; }
  public DimensionSpecBuilder schemaRegistry(SchemaRegistrySettings r) { this.schemaRegistry = r; return this; }

  /** Validates and builds; throws {@link SpecException} naming the field and the fix. */
  public DimensionSpec build() {
    if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
      throw SpecErrors.invalid(source, "name", "'" + name + "' is not a valid dimension name",
          "use letters, digits, '.', '_' or '-', starting with a letter or digit (it prefixes topic names)");
    }
    if (columns.isEmpty()) {
      throw SpecErrors.invalid(source, "columns", "no columns are declared",
          "list the columns as 'name: type' under 'columns', or give an Avro record schema as 'schema'");
    }
    Set<String> declared = new LinkedHashSet<>();
    for (Column c : columns) {
      if (!declared.add(c.name())) {
        throw SpecErrors.invalid(source, "columns", "column '" + c.name() + "' is declared twice", "declare it once");
      }
    }
    List<String> reserved = new ArrayList<>(List.of(output.validFrom(), output.validTo(), output.isCurrent()));
    if (output.hasVersionId()) {
      reserved.add(output.versionId());
    }
    if (new HashSet<>(reserved).size() != reserved.size()) {
      throw SpecErrors.invalid(source, "output", "two output columns share a name: " + reserved,
          "give valid_from, valid_to, is_current and version_id distinct names");
    }
    for (String r : reserved) {
      if (declared.contains(r)) {
        throw SpecErrors.invalid(source, "columns", "column '" + r + "' clashes with an output column name",
            "rename the column, or rename the output column under 'output'");
      }
    }
    if (key.isEmpty()) {
      throw SpecErrors.invalid(source, "key", "no key column is given", "list 1..n business key columns, e.g. key: [customer_id]");
    }
    checkDeclared("key", key, declared);
    if (sequence.isEmpty()) {
      throw SpecErrors.invalid(source, "sequence", "no sequence column is given",
          "list 1..n columns that order events, e.g. sequence: [updated_at]");
    }
    checkDeclared("sequence", sequence, declared);
    checkDistinct("key", key);
    checkDistinct("sequence", sequence);
    for (String s : sequence) {
      if (key.contains(s)) {
        throw SpecErrors.invalid(source, "sequence", "column '" + s + "' is also a key column",
            "use a column that orders events, not one that identifies the entity");
      }
      Column c = findColumn(s);
      if (!c.type().isSequenceable()) {
        throw SpecErrors.invalid(source, "sequence", "column '" + s + "' has type " + c.type()
            + ", which cannot order events", "use a timestamp, date, long or int column");
      }
    }
    for (String k : key) {
      ColumnType.Kind kind = findColumn(k).type().kind();
      if (kind == ColumnType.Kind.DOUBLE) {
        throw SpecErrors.invalid(source, "key", "column '" + k + "' is a double, which cannot identify an entity",
            "use a long, int, string, decimal, date or timestamp key column");
      }
    }
    String deleteColumn = deleteRule.column();
    if (deleteColumn != null) {
      if (!declared.contains(deleteColumn)) {
        throw SpecErrors.unknownColumn(source, "delete.column", deleteColumn, declared);
      }
      if (key.contains(deleteColumn) || sequence.contains(deleteColumn)) {
        throw SpecErrors.invalid(source, "delete.column", "column '" + deleteColumn + "' is a key or sequence column",
            "use a column that says whether the event is a delete");
      }
      if (deleteRule instanceof DeleteRule.BooleanColumn
          && findColumn(deleteColumn).type().kind() != ColumnType.Kind.BOOLEAN) {
        throw SpecErrors.invalid(source, "delete.column", "column '" + deleteColumn + "' is not a boolean",
            "declare it as boolean, or add 'equals: <value>' to compare it with a value");
      }
    }
    if (deleteRule instanceof DeleteRule.DebeziumOp && !inputFormat.isDebezium()) {
      throw SpecErrors.invalid(source, "delete", "'debezium' deletes need the debezium-json or debezium-avro input format",
          "set 'format: debezium-json', or use delete: {column: .., equals: ..}");
    }
    if (schemaRegistry != null && inputFormat != InputFormat.AVRO && !inputFormat.readsRegistry()
        && outputFormat != OutputFormat.AVRO) {
      throw SpecErrors.invalid(source, "schema_registry", "the registry serves the schemas of Avro records, but the"
          + " format is " + inputFormat.specName() + " and the versions_format " + outputFormat.name()
          .toLowerCase(java.util.Locale.ROOT), "set 'format: avro' or 'debezium-avro' to read the Confluent wire"
          + " format, 'versions_format: avro' to write it, or remove 'schema_registry'");
    }
    if (inputFormat.readsRegistry() && schemaRegistry == null) {
      throw SpecErrors.invalid(source, "format", "the " + inputFormat.specName() + " format reads records in the"
          + " Confluent wire format, whose writer schemas live in a schema registry",
          "add 'schema_registry: {url: http://registry:8081}' (the registry Kafka Connect's AvroConverter writes to)");
    }
    if (inputFormat == InputFormat.AVRO && avroSchema == null && schemaRegistry == null) {
      throw SpecErrors.invalid(source, "format", "the avro input format needs the writer schema",
          "declare the columns with 'schema: path/to/schema.avsc' (an Avro record schema), or add 'schema_registry:'"
              + " when each record names its writer schema by id (the Confluent wire format)");
    }
    Set<String> attributes = new LinkedHashSet<>();
    for (Column c : columns) {
      if (!key.contains(c.name()) && !sequence.contains(c.name()) && !c.name().equals(deleteColumn)) {
        attributes.add(c.name());
      }
    }
    Set<String> tracked;
    if (track != null && trackExcept != null) {
      throw SpecErrors.invalid(source, "track", "both 'track' and 'track_except' are given", "keep only one of them");
    } else if (track != null) {
      checkAttributes("track", track, attributes);
      tracked = new LinkedHashSet<>(track);
    } else if (trackExcept != null) {
      checkAttributes("track_except", trackExcept, attributes);
      tracked = new LinkedHashSet<>(attributes);
      tracked.removeAll(trackExcept);
    } else {
      tracked = attributes;
    }
    for (String derived : expressions.derive().keySet()) {
      if (!attributes.contains(derived)) {
        throw SpecErrors.invalid(source, "derive." + derived, "'" + derived + "' is not an attribute column",
            "declare it under 'columns' with the type of its value; derive attributes only (not key, sequence or"
                + " delete columns): " + attributes);
      }
    }
    if (history.isScd1()) {
      boolean tracks = track != null && !track.isEmpty();
      if (tracks || trackExcept != null) {
        throw SpecErrors.invalid(source, tracks ? "track" : "track_except",
            "a 'history: scd1' table keeps one row per key, so no column can open a new version",
            "remove '" + (tracks ? "track" : "track_except") + "', or use 'history: scd2'");
      }
      tracked = new LinkedHashSet<>(); // every attribute is overwritten in place: the latest state by sequence
    }
    long horizon;
    if (latenessHorizon != null) {
      if (latenessHorizon <= 0) {
        throw SpecErrors.invalid(source, "lateness_horizon", "the horizon must be positive", "give e.g. 30d, 12h or a positive number");
      }
      horizon = latenessHorizon;
    } else {
      horizon = switch (findColumn(sequence.get(0)).type().kind()) {
        case TIMESTAMP -> DimensionSpec.DEFAULT_HORIZON_MICROS;
        case DATE -> DimensionSpec.DEFAULT_HORIZON_DAYS;
        default -> Long.MAX_VALUE;
      };
    }
    return new DimensionSpec(name, source, columns, key, sequence, tracked, deleteRule, inputFormat, outputFormat,
        topics == null ? Topics.defaults(name) : topics, horizon, output, avroSchema,
        service == null ? ServiceSettings.defaults(name) : service, fields, expressions, history,
        TableSettings.validate(source, tableProperties), schemaRegistry);
  }

  private Column findColumn(String columnName) {
    return columns.stream().filter(c -> c.name().equals(columnName)).findFirst().orElseThrow();
  }

  private void checkDeclared(String field, List<String> names, Set<String> declared) {
    for (String n : names) {
      if (!declared.contains(n)) {
        throw SpecErrors.unknownColumn(source, field, n, declared);
      }
    }
  }

  private void checkDistinct(String field, List<String> names) {
    if (new HashSet<>(names).size() != names.size()) {
      throw SpecErrors.invalid(source, field, "a column is listed twice in " + names, "list each column once");
    }
  }

  private void checkAttributes(String field, List<String> names, Set<String> attributes) {
    for (String n : names) {
      if (!attributes.contains(n)) {
        throw SpecErrors.invalid(source, field, "'" + n + "' is not an attribute column",
            "list attribute columns only (not key, sequence or delete columns): " + attributes);
      }
    }
  }
}
