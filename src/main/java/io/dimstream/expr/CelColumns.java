package io.dimstream.expr;

import com.google.protobuf.Timestamp;
import dev.cel.common.types.CelType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import io.dimstream.types.ColumnType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** The one mapping between column types and values and CEL's types and values, both ways. */
final class CelColumns {
  private CelColumns() {}

  /** Decimals are doubles in CEL, which has no decimal type; dates are timestamps at midnight UTC. */
  static CelType celType(ColumnType type) {
    return switch (type.kind()) {
      case LONG, INT -> SimpleType.INT;
      case DOUBLE, DECIMAL -> SimpleType.DOUBLE;
      case BOOLEAN -> SimpleType.BOOL;
      case STRING -> SimpleType.STRING;
      case DATE, TIMESTAMP -> SimpleType.TIMESTAMP;
    };
  }

  /** A column value (as {@code ColumnType} documents it) as a CEL value; null becomes CEL's null. */
  static Object toCel(ColumnType type, Object value) {
    if (value == null) {
      return NullValue.NULL_VALUE;
    }
    return switch (type.kind()) {
      case LONG, INT -> ((Number) value).longValue();
      case DOUBLE, DECIMAL -> ((Number) value).doubleValue();
      case BOOLEAN, STRING -> value;
      case DATE -> Timestamp.newBuilder().setSeconds(((LocalDate) value).toEpochDay() * 86_400L).build();
      case TIMESTAMP -> timestamp((Instant) value);
    };
  }

  /** A sequence part (epoch microseconds, epoch days, or the number) as a CEL value of its column's type. */
  static Object sequenceToCel(ColumnType type, long part) {
    return switch (type.kind()) {
      case DATE -> Timestamp.newBuilder().setSeconds(part * 86_400L).build();
      case TIMESTAMP -> timestamp(Instant.EPOCH.plus(part, ChronoUnit.MICROS));
      default -> part;
    };
  }

  /**
   * A CEL result as a value of the column's type.
   *
   * @throws IllegalArgumentException saying why the value does not fit
   */
  static Object fromCel(ColumnType type, Object value) {
    if (value == null || value instanceof NullValue) {
      return null;
    }
    switch (type.kind()) {
      case LONG:
        return expect(value, Long.class, type);
      case INT: {
        long v = expect(value, Long.class, type);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(v + " is outside the range of an int");
        }
        return (int) v;
      }
      case DOUBLE:
        return expect(value, Double.class, type);
      case DECIMAL: {
        double d = expect(value, Double.class, type);
        if (Double.isNaN(d) || Double.isInfinite(d)) {
          throw new IllegalArgumentException(d + " is not a decimal number");
        }
        BigDecimal v = BigDecimal.valueOf(d).setScale(type.scale(), RoundingMode.HALF_EVEN);
        if (v.precision() > type.precision()) {
          throw new IllegalArgumentException(v.toPlainString() + " has more than " + type.precision() + " digits");
        }
        return v;
      }
      case BOOLEAN:
        return expect(value, Boolean.class, type);
      case STRING:
        return expect(value, String.class, type);
      case DATE:
        return LocalDate.ofInstant(instant(expect(value, Timestamp.class, type)), ZoneOffset.UTC);
      case TIMESTAMP:
        return instant(expect(value, Timestamp.class, type)).truncatedTo(ChronoUnit.MICROS);
      default:
        throw new IllegalStateException("unknown column type " + type);
    }
  }

  private static <T> T expect(Object value, Class<T> cls, ColumnType type) {
    if (!cls.isInstance(value)) {
      throw new IllegalArgumentException("a " + value.getClass().getSimpleName() + " (" + value + ") cannot be a "
          + type);
    }
    return cls.cast(value);
  }

  private static Timestamp timestamp(Instant i) {
    return Timestamp.newBuilder().setSeconds(i.getEpochSecond()).setNanos(i.getNano()).build();
  }

  private static Instant instant(Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }
}
