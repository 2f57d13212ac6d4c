package io.dimstream.table.internal.files;

import io.dimstream.types.ColumnType;
import java.math.BigInteger;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * The Parquet schema of a table's data files, built column by column. It is the schema parquet-avro derived from
 * {@link TableLayout#avroSchema} when data files were written through Avro, so old and new files read alike.
 */
final class RowSchema {
  private RowSchema() {}

  static MessageType of(TableLayout layout, String name) {
    Types.MessageTypeBuilder message = Types.buildMessage();
    for (int i = 0; i < layout.dataColumns.size(); i++) {
      Type.Repetition repetition = layout.isNullable(i) ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
      ColumnType t = layout.dataColumns.get(i).type();
      String column = layout.dataColumns.get(i).name();
      switch (t.kind()) {
        case LONG -> message.primitive(PrimitiveTypeName.INT64, repetition).named(column);
        case INT -> message.primitive(PrimitiveTypeName.INT32, repetition).named(column);
        case DOUBLE -> message.primitive(PrimitiveTypeName.DOUBLE, repetition).named(column);
        case BOOLEAN -> message.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(column);
        case STRING -> message.primitive(PrimitiveTypeName.BINARY, repetition)
            .as(LogicalTypeAnnotation.stringType()).named(column);
        case DATE -> message.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.dateType()).named(column);
        case TIMESTAMP -> message.primitive(PrimitiveTypeName.INT64, repetition)
            .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS)).named(column);
        case DECIMAL -> message.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
            .length(decimalBytes(t.precision()))
            .as(LogicalTypeAnnotation.decimalType(t.scale(), t.precision())).named(column);
      }
    }
    return message.named(name);
  }

  /** The fewest bytes whose two's complement holds every unscaled value of the precision. */
  static int decimalBytes(int precision) {
    int bits = BigInteger.TEN.pow(precision).bitLength() + 1;
    return (bits + 7) / 8;
  }
}
