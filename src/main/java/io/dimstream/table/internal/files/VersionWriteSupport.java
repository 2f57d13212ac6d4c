package io.dimstream.table.internal.files;

import io.dimstream.model.Version;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Writes versions straight to Parquet's {@link RecordConsumer}: no Avro record per row. The schema is
 * {@link TableLayout#parquetSchema} and the footer carries the same Avro schema parquet-avro wrote, so files read
 * exactly as the ones written through parquet-avro did. Feeds every value to the file's {@link StatsCollector}: long,
 * int, date and timestamp values in their stored form, unboxed.
 */
final class VersionWriteSupport extends WriteSupport<Version> {
  /** The footer key parquet-avro's reader takes its record schema from. */
  static final String AVRO_SCHEMA_KEY = "parquet.avro.schema";

  private final TableLayout layout;
  /** Null when the file carries no statistics (a change data file: its {@code cdc} action has none). */
  private final StatsCollector stats;
  private final String[] names;
  private final ColumnType.Kind[] kinds;
  private final boolean[] required;
  private final int[] fixedBytes;
  private final Object[] row;
  private final long[] longs;
  private final boolean[] present;
  private final int keyColumns;
  private final int attributeColumns;
  private final int sequenceParts;
  private final boolean hasVersionId;
  private RecordConsumer out;

  VersionWriteSupport(TableLayout layout, StatsCollector stats) {
    this.layout = layout;
    this.stats = stats;
    int n = layout.dataColumns.size();
    this.names = new String[n];
    this.kinds = new ColumnType.Kind[n];
    this.required = new boolean[n];
    this.fixedBytes = new int[n];
    this.row = new Object[n];
    this.longs = new long[n];
    this.present = new boolean[n];
    this.keyColumns = layout.keyColumns.size();
    this.attributeColumns = layout.attributeColumns.size();
    this.sequenceParts = layout.validFromColumns.size();
    this.hasVersionId = layout.versionIdColumn != null;
    for (int i = 0; i < n; i++) {
      ColumnType t = layout.dataColumns.get(i).type();
      names[i] = layout.dataColumns.get(i).name();
      kinds[i] = t.kind();
      required[i] = !layout.isNullable(i);
      fixedBytes[i] = t.kind() == ColumnType.Kind.DECIMAL ? RowSchema.decimalBytes(t.precision()) : 0;
    }
  }

  @Override
  public WriteContext init(Configuration configuration) {
    return context();
  }

  @Override
  public WriteContext init(ParquetConfiguration configuration) {
    return context();
  }

  private WriteContext context() {
    return new WriteContext(layout.parquetSchema, Map.of(AVRO_SCHEMA_KEY, layout.avroSchemaJson));
  }

  @Override
  public String getName() {
    return "dimstream";
  }

  @Override
  public void prepareForWrite(RecordConsumer recordConsumer) {
    this.out = recordConsumer;
  }

  @Override
  public void write(Version v) {
    take(v);
    out.startMessage();
    emit(out);
    out.endMessage();
  }

  /** Takes the values of {@code v}, checked, for {@link #emit}. */
  void take(Version v) {
    // every value first (a column that cannot hold its value, or a null where one is required, throws before the
    // row is started), then the row
    int i = 0;
    List<Object> key = v.key().values();
    for (int k = 0; k < keyColumns; k++, i++) {
      take(i, key.get(k));
    }
    List<Object> attributes = v.attributes();
    for (int a = 0; a < attributeColumns; a++, i++) {
      take(i, attributes.get(a));
    }
    for (int s = 0; s < sequenceParts; s++, i++) {
      takeSequence(i, v.validFrom().part(s));
    }
    for (int s = 0; s < sequenceParts; s++, i++) {
      if (v.validTo() == null) {
        takeNull(i);
      } else {
        takeSequence(i, v.validTo().part(s));
      }
    }
    if (hasVersionId) {
      takeLong(i, layout.versionId(v));
    }
    for (int c = 0; c < present.length; c++) {
      if (!present[c] && required[c]) {
        throw TableErrors.badChange(null, "column '" + names[c] + "' is null in the version of key " + v.key()
            + ", but key, valid-from and version id columns must have a value");
      }
    }
  }

  /** Writes the fields of the row {@link #take} took, inside a message the caller started. */
  void emit(RecordConsumer out) {
    for (int c = 0; c < present.length; c++) {
      if (!present[c]) {
        continue;
      }
      out.startField(names[c], c);
      switch (kinds[c]) {
        case LONG, TIMESTAMP -> out.addLong(longs[c]);
        case INT, DATE -> out.addInteger((int) longs[c]);
        case DOUBLE -> out.addDouble((Double) row[c]);
        case BOOLEAN -> out.addBoolean((Boolean) row[c]);
        case STRING -> out.addBinary(Binary.fromString((String) row[c]));
        case DECIMAL -> out.addBinary(Binary.fromConstantByteArray(fixed((BigDecimal) row[c], fixedBytes[c])));
      }
      out.endField(names[c], c);
    }
  }

  /**
   * Takes a key or attribute value: long, int, date and timestamp columns as longs (their stored form, no boxing)
   * when the value already has the column's Java type; anything else through {@link TableLayout#columnValue}.
   */
  private void take(int c, Object value) {
    if (value == null) {
      takeNull(c);
      return;
    }
    switch (kinds[c]) {
      case LONG -> {
        if (value instanceof Long l) {
          takeLong(c, l);
          return;
        }
      }
      case TIMESTAMP -> {
        if (value instanceof Instant t) {
          takeLong(c, ColumnValues.epochMicros(t));
          return;
        }
      }
      case STRING -> {
        if (value instanceof String) {
          takeObject(c, value);
          return;
        }
      }
      default -> { }
    }
    Object javaValue = layout.columnValue(c, value);
    switch (kinds[c]) {
      case LONG -> takeLong(c, (Long) javaValue);
      case INT -> takeLong(c, (Integer) javaValue);
      case DATE -> takeLong(c, ((LocalDate) javaValue).toEpochDay());
      case TIMESTAMP -> takeLong(c, ColumnValues.epochMicros((Instant) javaValue));
      default -> takeObject(c, javaValue);
    }
  }

  /** A sequence part in the stored form of its column: epoch micros, epoch days or the long itself. */
  private void takeSequence(int c, long part) {
    takeLong(c, part);
  }

  private void takeLong(int c, long value) {
    longs[c] = value;
    present[c] = true;
    if (stats != null) {
      stats.acceptLong(c, value);
    }
  }

  private void takeObject(int c, Object value) {
    row[c] = value;
    present[c] = true;
    if (stats != null) {
      stats.accept(c, value);
    }
  }

  private void takeNull(int c) {
    row[c] = null;
    present[c] = false;
    if (stats != null) {
      stats.accept(c, null);
    }
  }

  /** The unscaled value as a big-endian two's complement of exactly {@code size} bytes (sign-extended). */
  static byte[] fixed(BigDecimal value, int size) {
    byte[] unscaled = value.unscaledValue().toByteArray();
    if (unscaled.length == size) {
      return unscaled;
    }
    if (unscaled.length > size) {
      // ColumnValues.decimal has already held the value to the column's precision, so this is a bug, not bad input
      throw new IllegalStateException("decimal " + value + " needs " + unscaled.length + " bytes, more than " + size);
    }
    byte[] fixed = new byte[size];
    int pad = size - unscaled.length;
    Arrays.fill(fixed, 0, pad, value.signum() < 0 ? (byte) 0xFF : 0);
    System.arraycopy(unscaled, 0, fixed, pad, unscaled.length);
    return fixed;
  }

  /** A {@link ParquetWriter} builder for versions of one layout. */
  static final class Builder extends ParquetWriter.Builder<Version, Builder> {
    private final TableLayout layout;
    private final StatsCollector stats;

    Builder(OutputFile file, TableLayout layout, StatsCollector stats) {
      super(file);
      this.layout = layout;
      this.stats = stats;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Version> getWriteSupport(Configuration conf) {
      return new VersionWriteSupport(layout, stats);
    }

    @Override
    protected WriteSupport<Version> getWriteSupport(ParquetConfiguration conf) {
      return new VersionWriteSupport(layout, stats);
    }
  }
}
