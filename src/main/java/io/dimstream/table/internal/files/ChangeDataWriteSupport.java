package io.dimstream.table.internal.files;

import io.dimstream.model.Version;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/** Writes change data rows: a version's data columns, as {@link VersionWriteSupport} writes them, then _change_type. */
final class ChangeDataWriteSupport extends WriteSupport<ChangeDataWriteSupport.Row> {
  /** The column of the change type, as the Delta protocol names it. */
  static final String CHANGE_TYPE = "_change_type";

  /** One change data row. */
  record Row(Version version, String changeType) {}

  private final VersionWriteSupport rows;
  private final MessageType schema;
  private final int changeTypeIndex;
  private RecordConsumer out;

  ChangeDataWriteSupport(TableLayout layout) {
    // a cdc action carries no statistics: comparing every value for a min and max would be work thrown away
    this.rows = new VersionWriteSupport(layout, null);
    Types.MessageTypeBuilder b = Types.buildMessage();
    layout.parquetSchema.getFields().forEach(b::addField);
    b.primitive(PrimitiveTypeName.BINARY, Type.Repetition.REQUIRED).as(LogicalTypeAnnotation.stringType())
        .named(CHANGE_TYPE);
    this.schema = b.named(layout.parquetSchema.getName());
    this.changeTypeIndex = layout.dataColumns.size();
  }

  @Override
  public WriteContext init(Configuration configuration) {
    return new WriteContext(schema, Map.of());
  }

  @Override
  public WriteContext init(ParquetConfiguration configuration) {
    return new WriteContext(schema, Map.of());
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
  public void write(Row r) {
    rows.take(r.version());
    out.startMessage();
    rows.emit(out);
    out.startField(CHANGE_TYPE, changeTypeIndex);
    out.addBinary(Binary.fromString(r.changeType()));
    out.endField(CHANGE_TYPE, changeTypeIndex);
    out.endMessage();
  }

  /** A {@link ParquetWriter} builder for change data rows of one layout. */
  static final class Builder extends ParquetWriter.Builder<Row, Builder> {
    private final TableLayout layout;

    Builder(OutputFile file, TableLayout layout) {
      super(file);
      this.layout = layout;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Row> getWriteSupport(Configuration conf) {
      return new ChangeDataWriteSupport(layout);
    }

    @Override
    protected WriteSupport<Row> getWriteSupport(ParquetConfiguration conf) {
      return new ChangeDataWriteSupport(layout);
    }
  }
}
