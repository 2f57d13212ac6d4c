package io.dimstream.enrich;

import io.dimstream.codec.RowAvro;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import io.dimstream.spec.OutputFormat;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * One enrichment: a stream of facts joined, as of each fact's time, with the history of a dimension. Built only by
 * {@link EnrichmentSpecLoader}, which validates everything; an instance is always valid.
 *
 * <p>A fact at time {@code t} whose join columns name the business key {@code k} gets the version {@code v} of
 * {@code k} with {@code v.valid_from <= t < v.valid_to} (an open version has no upper bound). With none, the
 * attributes are null and {@link #foundColumn} is false.
 *
 * @param dimension       the dimension whose history the facts are joined with
 * @param facts           where the facts come from and what they hold
 * @param joinColumns     the fact columns that give the dimension's business key, in the dimension's key order
 * @param attributes      the dimension attributes added to each fact, with their output names
 * @param foundColumn     the boolean output column: whether the dimension had a version at the fact's time
 * @param versionIdColumn the output column of the version's surrogate key (its {@code output.version_id}); null for none
 * @param validFromColumn the output column of the version's {@code valid_from}; null for none
 * @param revisionColumn  the output column numbering the records of one fact: 1, then 2, 3, … for each correction
 * @param outputTopic     where enriched facts go, keyed by the fact key (default {@code <name>.enriched})
 * @param outputFormat    how their values are written: JSON objects, or Avro records of {@link #enrichedAvroSchema}
 *                        in the Confluent wire format with the dimension's schema registry (only when the dimension
 *                        has one)
 * @param dlqTopic        where fact records that cannot be read go, with the reason in headers (default {@code <name>.dlq})
 * @param grace           how long a fact may wait for the dimension to reach its time before it is emitted anyway
 */
public record EnrichmentSpec(
    String name,
    Path source,
    DimensionSpec dimension,
    Facts facts,
    List<String> joinColumns,
    List<Attribute> attributes,
    String foundColumn,
    String versionIdColumn,
    String validFromColumn,
    String revisionColumn,
    String outputTopic,
    OutputFormat outputFormat,
    String dlqTopic,
    Duration grace) {

  /** The default grace: none, a fact is emitted at once and corrected later if the dimension learns late. */
  public static final Duration DEFAULT_GRACE = Duration.ZERO;
  /** The default name of the revision column. */
  public static final String DEFAULT_REVISION_COLUMN = "revision";

  public EnrichmentSpec {
    joinColumns = List.copyOf(joinColumns);
    attributes = List.copyOf(attributes);
  }

  /**
   * The facts of an enrichment.
   *
   * @param columns the fact columns, in the order they are written out
   * @param key     the columns that identify a fact: its records on the output topic are keyed by them
   * @param time    the column holding the fact's time, in the units of the dimension's first sequence column
   */
  public record Facts(String topic, InputFormat format, List<Column> columns, List<String> key, String time) {
    public Facts {
      columns = List.copyOf(columns);
      key = List.copyOf(key);
    }

    public Column column(String name) {
      for (Column c : columns) {
        if (c.name().equals(name)) {
          return c;
        }
      }
      return null;
    }

    public int index(String name) {
      for (int i = 0; i < columns.size(); i++) {
        if (columns.get(i).name().equals(name)) {
          return i;
        }
      }
      return -1;
    }

    public ColumnType timeType() {
      return column(time).type();
    }
  }

  /**
   * A dimension attribute added to each fact.
   *
   * @param dimensionColumn the attribute's column in the dimension
   * @param outputName      its column in the enriched record (the same name unless renamed)
   * @param position        its position in {@link DimensionSpec#attributeColumns()}, i.e. in a version's attributes
   */
  public record Attribute(String dimensionColumn, String outputName, ColumnType type, int position) {}

  /** Every column of an enriched record, in order: the fact columns, the attributes, the found, version id, valid_from and revision columns. */
  public List<Column> outputColumns() {
    List<Column> out = new ArrayList<>(facts.columns());
    attributes.forEach(a -> out.add(new Column(a.outputName(), a.type())));
    out.add(new Column(foundColumn, ColumnType.BOOLEAN));
    if (versionIdColumn != null) {
      out.add(new Column(versionIdColumn, ColumnType.LONG));
    }
    if (validFromColumn != null) {
      out.add(new Column(validFromColumn, dimension.sequenceColumns().get(0).type()));
    }
    out.add(new Column(revisionColumn, ColumnType.LONG));
    return out;
  }

  /** The fact columns that are never null: the fact key, the time and the join columns. */
  public Set<String> requiredFactColumns() {
    Set<String> out = new LinkedHashSet<>(facts.key());
    out.add(facts.time());
    out.addAll(joinColumns);
    return out;
  }

  /**
   * The writer schema of facts sent as Avro ({@code facts.format: avro}): a record named {@code <name>_fact} with
   * one field per fact column, in order; the {@link #requiredFactColumns} plain, the others unions of null and
   * their type (see {@link RowAvro}).
   */
  public Schema factsAvroSchema() {
    return RowAvro.schema(name + "_fact", facts.columns(), requiredFactColumns());
  }

  /**
   * The columns of an enriched record that are never null: the {@link #requiredFactColumns}, the found column and the
   * revision column.
   */
  public Set<String> requiredOutputColumns() {
    Set<String> out = requiredFactColumns();
    out.add(foundColumn);
    out.add(revisionColumn);
    return out;
  }

  /**
   * The schema of enriched records written as Avro ({@code output.format: avro}): a record named
   * {@code <name>_enriched} with one field per {@link #outputColumns} entry, in order; the
   * {@link #requiredOutputColumns} plain, the others (the other fact columns, the attributes, the version id and
   * valid_from columns) unions of null and their type with default null (see {@link RowAvro}).
   *
   * @throws org.apache.avro.AvroRuntimeException when an output column's name is not an Avro name (the loader refuses
   *                                              such a spec with {@code output.format: avro})
   */
  public Schema enrichedAvroSchema() {
    return RowAvro.schema(name + "_enriched", outputColumns(), requiredOutputColumns());
  }

  /** The dimension's lateness horizon, in the units of its first sequence column (and of the fact time). */
  public long latenessHorizon() {
    return dimension.latenessHorizon();
  }
}
