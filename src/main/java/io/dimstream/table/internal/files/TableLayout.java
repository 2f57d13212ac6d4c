package io.dimstream.table.internal.files;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.SurrogateIds;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.schema.MessageType;

/**
 * The table's columns for one spec: key columns, attribute columns, {@code valid_from} (+ extra sequence parts),
 * {@code valid_to} (+ extra parts) in the data files, and {@code is_current} as the partition column. Gives each
 * version's column values for the data-file writer and decodes the Avro records parquet-avro reads back.
 */
public final class TableLayout {
  private static final Conversions.DecimalConversion DECIMALS = new Conversions.DecimalConversion();

  public final DimensionSpec spec;
  public final List<Column> keyColumns;
  public final List<Column> attributeColumns;
  /** valid_from columns, one per sequence part, typed like the part (int becomes long). */
  public final List<Column> validFromColumns;
  public final List<Column> validToColumns;
  /** The partition of open versions ({@code is_current=true}). */
  public final Partition current;
  /** The partition of closed versions ({@code is_current=false}). */
  public final Partition closed;
  /** Every column stored in the data files, in file order. */
  public final List<Column> dataColumns;
  public final Schema avroSchema;
  /** {@link #avroSchema} as JSON, kept in each data file's footer so Avro-based readers see the same record. */
  public final String avroSchemaJson;
  /** The data files' Parquet schema. */
  public final MessageType parquetSchema;
  private final Schema[] fieldSchemas;
  /** The {@code output.version_id} column (last data column), or null when the spec asks for none. */
  public final Column versionIdColumn;
  private final SurrogateIds versionIds;

  public TableLayout(DimensionSpec spec) {
    this.spec = spec;
    this.keyColumns = spec.keyColumns();
    this.attributeColumns = spec.attributeColumns();
    List<Column> seq = spec.sequenceColumns();
    List<String> fromNames = new ArrayList<>();
    fromNames.add(spec.output().validFrom());
    fromNames.addAll(spec.extraValidFromColumns());
    List<String> toNames = new ArrayList<>();
    toNames.add(spec.output().validTo());
    toNames.addAll(spec.extraValidToColumns());
    List<Column> from = new ArrayList<>();
    List<Column> to = new ArrayList<>();
    for (int i = 0; i < seq.size(); i++) {
      ColumnType t = sequenceTableType(seq.get(i).type());
      from.add(new Column(fromNames.get(i), t));
      to.add(new Column(toNames.get(i), t));
    }
    this.validFromColumns = List.copyOf(from);
    this.validToColumns = List.copyOf(to);
    this.current = new Partition(spec.output().isCurrent(), true);
    this.closed = new Partition(spec.output().isCurrent(), false);
    List<Column> data = new ArrayList<>(keyColumns);
    data.addAll(attributeColumns);
    data.addAll(validFromColumns);
    data.addAll(validToColumns);
    this.versionIdColumn = spec.output().hasVersionId() ? new Column(spec.output().versionId(), ColumnType.LONG) : null;
    this.versionIds = versionIdColumn == null ? null
        : new SurrogateIds(keyColumns.stream().map(Column::type).toList());
    if (versionIdColumn != null) {
      data.add(versionIdColumn);
    }
    this.dataColumns = List.copyOf(data);
    List<Schema.Field> fields = new ArrayList<>();
    fieldSchemas = new Schema[dataColumns.size()];
    for (int i = 0; i < dataColumns.size(); i++) {
      Column c = dataColumns.get(i);
      Schema s = avroType(c, i);
      fieldSchemas[i] = s;
      fields.add(nullable(i)
          ? new Schema.Field(c.name(), Schema.createUnion(Schema.create(Schema.Type.NULL), s), null,
              Schema.Field.NULL_DEFAULT_VALUE)
          : new Schema.Field(c.name(), s));
    }
    this.avroSchema = Schema.createRecord("version_row", null, "io.dimstream.table", false, fields);
    this.avroSchemaJson = avroSchema.toString();
    this.parquetSchema = RowSchema.of(this, avroSchema.getFullName());
  }

  /** The names of the key and valid_from columns: what the position index reads of each data file. */
  public Set<String> identityColumns() {
    Set<String> out = new LinkedHashSet<>();
    keyColumns.forEach(c -> out.add(c.name()));
    validFromColumns.forEach(c -> out.add(c.name()));
    return out;
  }

  public static ColumnType sequenceTableType(ColumnType t) {
    return t.kind() == ColumnType.Kind.INT ? ColumnType.LONG : t;
  }

  public List<String> partitionColumns() {
    return List.of(current.column());
  }

  public Partition partition(boolean isCurrent) {
    return isCurrent ? current : closed;
  }

  public Map<String, String> partitionValues(boolean isCurrent) {
    return partition(isCurrent).partitionValues();
  }

  /** Whether {@code file} holds open versions; a file without a partition value counts as closed. */
  public boolean isCurrentFile(AddFile file) {
    return current.holds(file);
  }

  /** Key, first validity and version id columns are never null; attributes and validity ends may be. */
  private boolean nullable(int dataIndex) {
    int keys = keyColumns.size();
    int attrs = attributeColumns.size();
    boolean isKey = dataIndex < keys;
    boolean isFrom = dataIndex >= keys + attrs && dataIndex < keys + attrs + validFromColumns.size();
    boolean isVersionId = versionIdColumn != null && dataIndex == dataColumns.size() - 1;
    return !(isKey || isFrom || isVersionId);
  }

  /** The MERGE condition this table's commits apply, for commitInfo.operationParameters. */
  public String identityPredicate() {
    List<String> cols = new ArrayList<>();
    keyColumns.forEach(c -> cols.add(c.name()));
    validFromColumns.forEach(c -> cols.add(c.name()));
    return String.join(" AND ", cols.stream().map(c -> "target." + c + " = source." + c).toList());
  }

  /** Delta's JSON schema of the table (data columns plus the partition column). */
  public String deltaSchemaString() {
    ObjectNode root = ActionCodec.JSON.createObjectNode();
    root.put("type", "struct");
    ArrayNode fields = root.putArray("fields");
    for (int i = 0; i < dataColumns.size(); i++) {
      addField(fields, dataColumns.get(i).name(), deltaType(dataColumns.get(i).type()), nullable(i));
    }
    addField(fields, current.column(), "boolean", false);
    try {
      return ActionCodec.JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void addField(ArrayNode fields, String name, String type, boolean nullable) {
    ObjectNode f = fields.addObject();
    f.put("name", name);
    f.put("type", type);
    f.put("nullable", nullable);
    f.putObject("metadata");
  }

  public static String deltaType(ColumnType t) {
    return switch (t.kind()) {
      case LONG -> "long";
      case INT -> "integer";
      case DOUBLE -> "double";
      case DECIMAL -> "decimal(" + t.precision() + "," + t.scale() + ")";
      case BOOLEAN -> "boolean";
      case STRING -> "string";
      case DATE -> "date";
      case TIMESTAMP -> "timestamp";
    };
  }

  private static Schema avroType(Column c, int index) {
    ColumnType t = c.type();
    return switch (t.kind()) {
      case LONG -> Schema.create(Schema.Type.LONG);
      case INT -> Schema.create(Schema.Type.INT);
      case DOUBLE -> Schema.create(Schema.Type.DOUBLE);
      case BOOLEAN -> Schema.create(Schema.Type.BOOLEAN);
      case STRING -> {
        Schema s = Schema.create(Schema.Type.STRING);
        GenericData.setStringType(s, GenericData.StringType.String);
        yield s;
      }
      case DATE -> LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case TIMESTAMP -> LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case DECIMAL -> LogicalTypes.decimal(t.precision(), t.scale())
          .addToSchema(Schema.createFixed("decimal" + index, null, "io.dimstream.table", RowSchema.decimalBytes(t.precision())));
    };
  }

  /**
   * The version as an Avro data-file record; feeds each value to {@code stats}. The data files are written with
   * {@link VersionWriteSupport}; this form stays as the reference that writer is tested against.
   */
  public GenericRecord toRecord(Version v, StatsCollector stats) {
    Object[] row = new Object[dataColumns.size()];
    values(v, row, stats);
    GenericData.Record r = new GenericData.Record(avroSchema);
    for (int i = 0; i < row.length; i++) {
      r.put(i, row[i] == null ? null : encode(row[i], dataColumns.get(i).type(), fieldSchemas[i]));
    }
    return r;
  }

  /**
   * Fills {@code row} (one slot per data column, file order) with the version's values in their columns' Java types
   * and feeds each value to {@code stats}.
   */
  public void values(Version v, Object[] row, StatsCollector stats) {
    int i = 0;
    for (int k = 0; k < keyColumns.size(); k++, i++) {
      put(row, i, v.key().values().get(k), stats);
    }
    for (int a = 0; a < attributeColumns.size(); a++, i++) {
      put(row, i, v.attributes().get(a), stats);
    }
    for (int s = 0; s < validFromColumns.size(); s++, i++) {
      put(row, i, ColumnValues.sequenceValue(v.validFrom().part(s), validFromColumns.get(s).type()), stats);
    }
    for (int s = 0; s < validToColumns.size(); s++, i++) {
      Object value = v.validTo() == null ? null
          : ColumnValues.sequenceValue(v.validTo().part(s), validToColumns.get(s).type());
      put(row, i, value, stats);
    }
    if (versionIdColumn != null) {
      put(row, i, versionId(v), stats);
    }
  }

  private void put(Object[] row, int i, Object value, StatsCollector stats) {
    Object javaValue = columnValue(i, value);
    stats.accept(i, javaValue);
    row[i] = javaValue;
  }

  /** {@code value} in the Java type of the data column at {@code i}; throws when the column cannot hold it. */
  Object columnValue(int i, Object value) {
    Column c = dataColumns.get(i);
    try {
      return normalize(value, c.type());
    } catch (ClassCastException | ArithmeticException | IllegalArgumentException e) {
      throw TableErrors.badChange(null, "column '" + c.name() + "' (" + c.type() + ") cannot hold "
          + value + " of " + value.getClass().getSimpleName());
    }
  }

  /** The {@code output.version_id} value of a version; only when {@link #versionIdColumn} is set. */
  long versionId(Version v) {
    return versionIds.of(normalizeKey(v.key()), v.validFrom());
  }

  /** Whether the data column at {@code dataIndex} may hold nulls (OPTIONAL in the Parquet schema). */
  public boolean isNullable(int dataIndex) {
    return nullable(dataIndex);
  }

  /** The key with each value in its column's Java type (an Integer given for a long column becomes a Long). */
  public BusinessKey normalizeKey(BusinessKey key) {
    if (key.values().size() != keyColumns.size()) {
      throw TableErrors.badChange(null, "key " + key + " has " + key.values().size() + " values but the table key "
          + spec.key() + " has " + keyColumns.size());
    }
    List<Object> out = null;
    for (int i = 0; i < keyColumns.size(); i++) {
      Object v = key.values().get(i);
      Object n;
      try {
        n = normalize(v, keyColumns.get(i).type());
      } catch (ClassCastException | ArithmeticException | IllegalArgumentException e) {
        throw TableErrors.badChange(null, "key column '" + keyColumns.get(i).name() + "' ("
            + keyColumns.get(i).type() + ") cannot hold " + v);
      }
      if (n == null) {
        throw TableErrors.badChange(null, "key column '" + keyColumns.get(i).name() + "' is null in key " + key);
      }
      if (out == null && !n.equals(v)) {
        out = new ArrayList<>(key.values());
      }
      if (out != null) {
        out.set(i, n);
      }
    }
    return out == null ? key : new BusinessKey(out);
  }

  private static Object normalize(Object v, ColumnType t) {
    if (v == null) {
      return null;
    }
    return switch (t.kind()) {
      case LONG -> ((Number) v).longValue();
      case INT -> Math.toIntExact(((Number) v).longValue());
      case DOUBLE -> ((Number) v).doubleValue();
      case DECIMAL -> ColumnValues.decimal((BigDecimal) v, t);
      case BOOLEAN -> (Boolean) v;
      case STRING -> (String) v;
      case DATE -> (LocalDate) v;
      case TIMESTAMP -> (Instant) v;
    };
  }

  private static Object encode(Object v, ColumnType t, Schema s) {
    return switch (t.kind()) {
      case DATE -> (int) ((LocalDate) v).toEpochDay();
      case TIMESTAMP -> ColumnValues.epochMicros((Instant) v);
      case DECIMAL -> DECIMALS.toFixed((BigDecimal) v, s, s.getLogicalType());
      default -> v;
    };
  }

  /** A decoder of records read with {@code fileSchema}; columns missing from the file read as null. */
  public Function<GenericRecord, Version> decoder(Schema fileSchema) {
    int n = dataColumns.size();
    int[] pos = new int[n];
    Schema[] schemas = new Schema[n];
    for (int i = 0; i < n; i++) {
      Schema.Field f = fileSchema.getField(dataColumns.get(i).name());
      pos[i] = f == null ? -1 : f.pos();
      schemas[i] = f == null ? null : nonNull(f.schema());
    }
    int keys = keyColumns.size();
    int attrs = attributeColumns.size();
    int parts = validFromColumns.size();
    return r -> {
      Object[] values = new Object[n];
      for (int i = 0; i < n; i++) {
        values[i] = pos[i] < 0 ? null : decode(r.get(pos[i]), dataColumns.get(i).type(), schemas[i]);
      }
      List<Object> key = new ArrayList<>(keys);
      for (int k = 0; k < keys; k++) {
        key.add(values[k]);
      }
      List<Object> attributes = new ArrayList<>(attrs);
      for (int a = 0; a < attrs; a++) {
        attributes.add(values[keys + a]);
      }
      long[] from = new long[parts];
      long[] to = new long[parts];
      boolean open = false;
      for (int s = 0; s < parts; s++) {
        Object f = values[keys + attrs + s];
        Object t = values[keys + attrs + parts + s];
        if (f == null) {
          throw new IllegalArgumentException("column '" + validFromColumns.get(s).name() + "' is null");
        }
        from[s] = ColumnValues.sequenceLong(f, validFromColumns.get(s).type());
        if (t == null) {
          open = true;
        } else {
          to[s] = ColumnValues.sequenceLong(t, validToColumns.get(s).type());
        }
      }
      return new Version(new BusinessKey(key), Sequence.of(from), open ? null : Sequence.of(to), attributes);
    };
  }

  private static Schema nonNull(Schema s) {
    if (s.getType() == Schema.Type.UNION) {
      for (Schema b : s.getTypes()) {
        if (b.getType() != Schema.Type.NULL) {
          return b;
        }
      }
    }
    return s;
  }

  private static Object decode(Object raw, ColumnType t, Schema s) {
    if (raw == null) {
      return null;
    }
    LogicalType lt = s.getLogicalType();
    return switch (t.kind()) {
      case LONG -> ((Number) raw).longValue();
      case INT -> ((Number) raw).intValue();
      case DOUBLE -> ((Number) raw).doubleValue();
      case BOOLEAN -> (Boolean) raw;
      case STRING -> raw.toString();
      case DATE -> LocalDate.ofEpochDay(((Number) raw).longValue());
      case TIMESTAMP -> {
        if (raw instanceof GenericFixed f && f.bytes().length == Int96.BYTES) {
          // Spark writes timestamps as INT96 unless told otherwise; Delta readers take them as UTC instants
          yield Int96.toInstant(f.bytes());
        }
        long x = ((Number) raw).longValue();
        if (lt instanceof LogicalTypes.TimestampMillis || lt instanceof LogicalTypes.LocalTimestampMillis) {
          yield Instant.ofEpochMilli(x);
        }
        if (lt instanceof LogicalTypes.TimestampNanos || lt instanceof LogicalTypes.LocalTimestampNanos) {
          yield Instant.EPOCH.plusNanos(x);
        }
        yield Instant.EPOCH.plus(x, ChronoUnit.MICROS);
      }
      case DECIMAL -> {
        int scale = lt instanceof LogicalTypes.Decimal d ? d.getScale() : t.scale();
        BigDecimal bd;
        if (raw instanceof GenericFixed f) {
          bd = new BigDecimal(new BigInteger(f.bytes()), scale);
        } else if (raw instanceof ByteBuffer b) {
          byte[] bytes = new byte[b.remaining()];
          b.duplicate().get(bytes);
          bd = new BigDecimal(new BigInteger(bytes), scale);
        } else {
          bd = BigDecimal.valueOf(((Number) raw).longValue(), scale);
        }
        yield bd.setScale(t.scale());
      }
    };
  }
}
