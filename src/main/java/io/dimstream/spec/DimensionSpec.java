package io.dimstream.spec;

import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One dimension: its columns, business key, sequence, tracked columns and delete rule (docs/concepts.md),
 * plus topic names, formats, the lateness horizon and how the service runs it. Built only by
 * {@link DimensionSpecLoader} or {@link #builder}, which validate everything; an instance is always valid.
 *
 * <p>Column roles: the <em>key</em> columns identify an entity; the <em>sequence</em> columns order its events
 * (compared left to right; each maps onto a long: timestamps as epoch microseconds, dates as epoch days);
 * the <em>delete column</em> (if the delete rule reads one) describes the event only; every other column is an
 * <em>attribute</em> of the versions. Attributes are <em>tracked</em> (a change opens a new version) or
 * untracked (type 1: overwritten in place in the open version).
 *
 * @param fields          what absent and undeclared fields of an event mean ({@link FieldRules#DEFAULT} if unset)
 * @param expressions     derived attributes and the skip condition, as written (docs/reference/spec.md, "Expressions")
 * @param history         full history (scd2) or one row per key (scd1); with scd1 no attribute is tracked
 * @param latenessHorizon how far behind a key's newest sequence (first sequence column, in its long units) an
 *                        event may arrive and still be spliced into history; {@link Long#MAX_VALUE} = unbounded
 * @param tableProperties Delta table properties for the table this spec creates ({@code output.table_properties},
 *                        names from {@link TableSettings#keys()}); empty for the defaults; an existing table keeps its own
 * @param schemaRegistry  where the writer schemas of the {@code avro} format's records live, when they come in the
 *                        Confluent wire format ({@code schema_registry}); null: plain Avro with the spec's schema
 */
public record DimensionSpec(
    String name,
    Path source,
    List<Column> columns,
    List<String> key,
    List<String> sequence,
    Set<String> tracked,
    DeleteRule deleteRule,
    InputFormat inputFormat,
    OutputFormat outputFormat,
    Topics topics,
    long latenessHorizon,
    OutputColumns output,
    String avroSchema,
    ServiceSettings service,
    FieldRules fields, Expressions expressions, HistoryMode history, Map<String, String> tableProperties,
    SchemaRegistrySettings schemaRegistry) {

  /** 30 days in microseconds: the default horizon for timestamp sequences. */
  public static final long DEFAULT_HORIZON_MICROS = 30L * 24 * 3600 * 1_000_000;
  /** 30 days: the default horizon for date sequences. */
  public static final long DEFAULT_HORIZON_DAYS = 30L;

  public DimensionSpec {
    columns = List.copyOf(columns);
    key = List.copyOf(key);
    sequence = List.copyOf(sequence);
    tracked = Collections.unmodifiableSet(new java.util.LinkedHashSet<>(tracked));
    expressions = expressions == null ? Expressions.NONE : expressions;
    tableProperties = tableProperties == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(tableProperties));
  }

  /** A spec that sets no table property (the table defaults apply). */
  public DimensionSpec(String name, Path source, List<Column> columns, List<String> key, List<String> sequence,
      Set<String> tracked, DeleteRule deleteRule, InputFormat inputFormat, OutputFormat outputFormat, Topics topics,
      long latenessHorizon, OutputColumns output, String avroSchema, ServiceSettings service, FieldRules fields,
      Expressions expressions, HistoryMode history) {
    this(name, source, columns, key, sequence, tracked, deleteRule, inputFormat, outputFormat, topics,
        latenessHorizon, output, avroSchema, service, fields, expressions, history, Map.of());
  }

  /** A spec that reads no schema registry. */
  public DimensionSpec(String name, Path source, List<Column> columns, List<String> key, List<String> sequence,
      Set<String> tracked, DeleteRule deleteRule, InputFormat inputFormat, OutputFormat outputFormat, Topics topics,
      long latenessHorizon, OutputColumns output, String avroSchema, ServiceSettings service, FieldRules fields,
      Expressions expressions, HistoryMode history, Map<String, String> tableProperties) {
    this(name, source, columns, key, sequence, tracked, deleteRule, inputFormat, outputFormat, topics,
        latenessHorizon, output, avroSchema, service, fields, expressions, history, tableProperties, null);
  }

  public Column column(String columnName) {
    for (Column c : columns) {
      if (c.name().equals(columnName)) {
        return c;
      }
    }
    return null;
  }

  public List<Column> keyColumns() {
    return key.stream().map(this::column).toList();
  }

  public List<Column> sequenceColumns() {
    return sequence.stream().map(this::column).toList();
  }

  /** Attribute columns in declaration order: neither key, nor sequence, nor the delete rule's column. */
  public List<Column> attributeColumns() {
    String deleteColumn = deleteRule.column();
    List<Column> out = new ArrayList<>();
    for (Column c : columns) {
      if (!key.contains(c.name()) && !sequence.contains(c.name()) && !c.name().equals(deleteColumn)) {
        out.add(c);
      }
    }
    return out;
  }

  public boolean isTracked(String attribute) {
    return tracked.contains(attribute);
  }

  /** For each attribute position (as in {@link #attributeColumns()}), whether it is tracked. */
  public boolean[] trackedMask() {
    List<Column> attrs = attributeColumns();
    boolean[] mask = new boolean[attrs.size()];
    for (int i = 0; i < mask.length; i++) {
      mask[i] = tracked.contains(attrs.get(i).name());
    }
    return mask;
  }

  /**
   * Names of the extra validity columns of a composite sequence. {@code valid_from}/{@code valid_to} carry the
   * first sequence column; each further sequence column {@code c} is carried by {@code <valid_from>_c} and
   * {@code <valid_to>_c} (a dot in {@code c} becomes an underscore), so a version's identity (key, full opening
   * sequence) survives in every output.
   */
  public List<String> extraValidFromColumns() {
    return sequence.subList(1, sequence.size()).stream().map(c -> output.validFrom() + "_" + identifier(c)).toList();
  }

  public List<String> extraValidToColumns() {
    return sequence.subList(1, sequence.size()).stream().map(c -> output.validTo() + "_" + identifier(c)).toList();
  }

  /** A Debezium source field ({@code source.pos}) names its validity column as {@code valid_from_source_pos}. */
  private static String identifier(String sequenceColumn) {
    return sequenceColumn.replace('.', '_');
  }

  /** Key and attribute columns of a version row, in order (the validity columns follow them). */
  public Map<String, ColumnType> versionColumns() {
    Map<String, ColumnType> out = new LinkedHashMap<>();
    keyColumns().forEach(c -> out.put(c.name(), c.type()));
    attributeColumns().forEach(c -> out.put(c.name(), c.type()));
    return out;
  }

  /** The same dimension, run with other service settings (command-line overrides). */
  public DimensionSpec withService(ServiceSettings settings) {
    return new DimensionSpec(name, source, columns, key, sequence, tracked, deleteRule, inputFormat, outputFormat,
        topics, latenessHorizon, output, avroSchema, settings, fields, expressions, history, tableProperties,
        schemaRegistry);
  }

  public static DimensionSpecBuilder builder(String name) {
    return new DimensionSpecBuilder(name);
  }
}
