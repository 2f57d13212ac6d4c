package io.dimstream.codec;

import io.dimstream.model.Sequence;
import io.dimstream.types.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;

/**
 * One non-null column value in its compact binary form: long, int and date (epoch day) as zig-zag varints, double as
 * its 8 IEEE bytes, decimal as scale and unscaled two's-complement bytes, boolean as one byte, string as UTF-8 with a
 * varint length, timestamp as epoch seconds and nanoseconds. The value forms of {@link StateBinary} and of the
 * enrichment's state; and a sequence, as its part count then each part as a zig-zag varint.
 */
public final class ColumnBinary {
  private ColumnBinary() {}

  public static void write(ByteWriter out, Object v, ColumnType.Kind kind) {
    switch (kind) {
      case LONG -> out.zigzag((Long) v);
      case INT -> out.zigzag((Integer) v);
      case DOUBLE -> out.fixed64(Double.doubleToRawLongBits((Double) v));
      case DECIMAL -> {
        BigDecimal d = (BigDecimal) v;
        out.zigzag(d.scale());
        out.blob(d.unscaledValue().toByteArray());
      }
      case BOOLEAN -> out.write((Boolean) v ? 1 : 0);
      case STRING -> out.blob(((String) v).getBytes(StandardCharsets.UTF_8));
      case DATE -> out.zigzag(((LocalDate) v).toEpochDay());
      case TIMESTAMP -> {
        Instant t = (Instant) v;
        out.zigzag(t.getEpochSecond());
        out.varint(t.getNano());
      }
      default -> throw new IllegalStateException(kind.toString());
    }
  }

  public static Object read(ByteReader in, ColumnType.Kind kind) {
    return switch (kind) {
      case LONG -> in.zigzag();
      case INT -> (int) in.zigzag();
      case DOUBLE -> Double.longBitsToDouble(in.fixed64());
      case DECIMAL -> {
        int scale = (int) in.zigzag();
        yield new BigDecimal(new BigInteger(in.blob()), scale);
      }
      case BOOLEAN -> in.read() == 1;
      case STRING -> new String(in.blob(), StandardCharsets.UTF_8);
      case DATE -> LocalDate.ofEpochDay(in.zigzag());
      case TIMESTAMP -> Instant.ofEpochSecond(in.zigzag(), in.varint());
    };
  }

  public static void writeSequence(ByteWriter out, Sequence s) {
    out.varint(s.size());
    for (int i = 0; i < s.size(); i++) {
      out.zigzag(s.part(i));
    }
  }

  public static Sequence readSequence(ByteReader in) {
    long[] parts = new long[(int) in.varint()];
    for (int i = 0; i < parts.length; i++) {
      parts[i] = in.zigzag();
    }
    return Sequence.of(parts);
  }
}
