package io.dimstream.codec;

import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * The one mapping of a column type to Avro: its schema (with the logical type) and how its in-memory value is
 * written and read in Avro binary encoding. Adding a column type means adding its case here (and its JSON form in
 * {@code ColumnValues}).
 *
 * @param schema the non-null Avro schema of the column
 */
record ColumnAvro(Schema schema, Writer writer, Reader reader) {

  /** Writes one non-null in-memory value. */
  @FunctionalInterface
  interface Writer {
    void write(Encoder out, Object value) throws IOException;
  }

  /** Reads one non-null in-memory value. */
  @FunctionalInterface
  interface Reader {
    Object read(Decoder in) throws IOException;
  }

  static ColumnAvro of(ColumnType type) {
    return switch (type.kind()) {
      case LONG -> new ColumnAvro(Schema.create(Schema.Type.LONG), (out, v) -> out.writeLong((Long) v),
          Decoder::readLong);
      case INT -> new ColumnAvro(Schema.create(Schema.Type.INT), (out, v) -> out.writeInt((Integer) v),
          Decoder::readInt);
      case DOUBLE -> new ColumnAvro(Schema.create(Schema.Type.DOUBLE), (out, v) -> out.writeDouble((Double) v),
          Decoder::readDouble);
      case BOOLEAN -> new ColumnAvro(Schema.create(Schema.Type.BOOLEAN), (out, v) -> out.writeBoolean((Boolean) v),
          Decoder::readBoolean);
      case STRING -> new ColumnAvro(Schema.create(Schema.Type.STRING), (out, v) -> out.writeString((String) v),
          Decoder::readString);
      case DECIMAL -> new ColumnAvro(
          LogicalTypes.decimal(type.precision(), type.scale()).addToSchema(Schema.create(Schema.Type.BYTES)),
          (out, v) -> out.writeBytes(((BigDecimal) v).setScale(type.scale(), RoundingMode.UNNECESSARY)
              .unscaledValue().toByteArray()),
          in -> readDecimal(in, type.scale()));
      case DATE -> new ColumnAvro(LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT)),
          (out, v) -> out.writeInt(Math.toIntExact(((LocalDate) v).toEpochDay())),
          in -> LocalDate.ofEpochDay(in.readInt()));
      case TIMESTAMP -> new ColumnAvro(LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG)),
          (out, v) -> out.writeLong(ColumnValues.epochMicros((Instant) v)),
          in -> Instant.EPOCH.plus(in.readLong(), ChronoUnit.MICROS));
    };
  }

  /**
   * The Avro schema of a validity field that holds a sequence part of a column of this type: the column's own
   * schema for dates and timestamps (whose sequence longs are epoch days and microseconds), else {@code long}.
   */
  static Schema sequenceSchema(ColumnType type) {
    return type.kind() == ColumnType.Kind.DATE || type.kind() == ColumnType.Kind.TIMESTAMP ? of(type).schema()
        : Schema.create(Schema.Type.LONG);
  }

  /** The same mapping for a nullable column: a union of null (branch 0) and the value (branch 1). */
  ColumnAvro nullable() {
    return new ColumnAvro(Schema.createUnion(Schema.create(Schema.Type.NULL), schema), (out, v) -> {
      if (v == null) {
        out.writeIndex(0);
        out.writeNull();
      } else {
        out.writeIndex(1);
        writer.write(out, v);
      }
    }, in -> readPresent(in) ? reader.read(in) : null);
  }

  void write(Encoder out, Object value) throws IOException {
    writer.write(out, value);
  }

  Object read(Decoder in) throws IOException {
    return reader.read(in);
  }

  /** Reads the branch of a {@code ["null", x]} union: whether a value follows. */
  static boolean readPresent(Decoder in) throws IOException {
    int branch = in.readIndex();
    if (branch == 0) {
      in.readNull();
      return false;
    }
    if (branch == 1) {
      return true;
    }
    throw new IllegalArgumentException("union branch " + branch + " is not one of the 2 branches");
  }

  private static BigDecimal readDecimal(Decoder in, int scale) throws IOException {
    ByteBuffer b = in.readBytes(null);
    byte[] raw = new byte[b.remaining()];
    b.get(raw);
    if (raw.length == 0) {
      throw new IllegalArgumentException("a decimal has no bytes");
    }
    return new BigDecimal(new BigInteger(raw), scale);
  }
}
