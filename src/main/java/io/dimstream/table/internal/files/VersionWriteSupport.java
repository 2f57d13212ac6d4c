package io.dimstream.table.internal.files;

import io.dimstream.config.ColumnType;
import io.dimstream.config.ColumnValues;
import io.dimstream.model.Version;
import io.dimstream.table.internal.TableErrors;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
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
 * exactly as the ones written through parquet-avro did. Feeds every value to the file's {@link StatsCollector}.
 */
final class VersionWriteSupport extends WriteSupport<Version> {
  /** The footer key parquet-avro's reader takes its record schema from. */
  static final String AVRO_SCHEMA_KEY = "parquet.avro.schema";

  private final TableLayout layout;
  private final StatsCollector stats;
  private final String[] names;
  private final ColumnType.Kind[] kinds;
  private final boolean[] required;
  private final int[] fixedBytes;
  private final Object[] row;
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
    layout.values(v, row, stats);
    for (int i = 0; i < row.length; i++) {
      if (row[i] == null && required[i]) {
        throw TableErrors.badChange(null, "column '" + names[i] + "' is null in the version of key " + v.key()
            + ", but key, valid-from and version id columns must have a value");
      }
    }
    out.startMessage();
    for (int i = 0; i < row.length; i++) {
      Object value = row[i];
      if (value == null) {
        continue;
      }
      out.startField(names[i], i);
      switch (kinds[i]) {
        case LONG -> out.addLong((Long) value);
        case INT -> out.addInteger((Integer) value);
        case DOUBLE -> out.addDouble((Double) value);
        case BOOLEAN -> out.addBoolean((Boolean) value);
        case STRING -> out.addBinary(Binary.fromString((String) value));
        case DATE -> out.addInteger((int) ((LocalDate) value).toEpochDay());
        case TIMESTAMP -> out.addLong(ColumnValues.epochMicros((Instant) value));
        case DECIMAL -> out.addBinary(Binary.fromConstantByteArray(fixed((BigDecimal) value, fixedBytes[i])));
      }
      out.endField(names[i], i);
    }
    out.endMessage();
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
