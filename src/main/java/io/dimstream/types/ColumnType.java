package io.dimstream.types;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of a dimension column as written in the spec: {@code long}, {@code int}, {@code double},
 * {@code decimal(p,s)}, {@code boolean}, {@code string}, {@code date}, {@code timestamp}.
 *
 * <p>In memory, values are {@link Long}, {@link Integer}, {@link Double}, {@link java.math.BigDecimal}
 * (scale {@code s}), {@link Boolean}, {@link String}, {@link java.time.LocalDate} and
 * {@link java.time.Instant} respectively.
 */
public record ColumnType(Kind kind, int precision, int scale) {

  /** The closed set of base types. */
  public enum Kind { LONG, INT, DOUBLE, DECIMAL, BOOLEAN, STRING, DATE, TIMESTAMP }

  public static final ColumnType LONG = new ColumnType(Kind.LONG, 0, 0);
  public static final ColumnType INT = new ColumnType(Kind.INT, 0, 0);
  public static final ColumnType DOUBLE = new ColumnType(Kind.DOUBLE, 0, 0);
  public static final ColumnType BOOLEAN = new ColumnType(Kind.BOOLEAN, 0, 0);
  public static final ColumnType STRING = new ColumnType(Kind.STRING, 0, 0);
  public static final ColumnType DATE = new ColumnType(Kind.DATE, 0, 0);
  public static final ColumnType TIMESTAMP = new ColumnType(Kind.TIMESTAMP, 0, 0);

  private static final Pattern DECIMAL = Pattern.compile("decimal\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)");

  public static ColumnType decimal(int precision, int scale) {
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
      throw new IllegalArgumentException(
          "decimal(" + precision + "," + scale + ") is out of range: precision must be 1..38 and scale 0..precision");
    }
    return new ColumnType(Kind.DECIMAL, precision, scale);
  }

  /** Parses a spec type name; throws {@link IllegalArgumentException} naming the accepted forms. */
  public static ColumnType parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    switch (t) {
      case "long": case "bigint": return LONG;
      case "int": case "integer": return INT;
      case "double": return DOUBLE;
      case "boolean": return BOOLEAN;
      case "string": return STRING;
      case "date": return DATE;
      case "timestamp": return TIMESTAMP;
      default:
        Matcher m = DECIMAL.matcher(t);
        if (m.matches()) {
          return decimal(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
        }
        throw new IllegalArgumentException("unknown column type '" + text
            + "'; use one of long, int, double, decimal(p,s), boolean, string, date, timestamp");
    }
  }

  /** Whether a column of this type may be part of the sequence (it maps onto a long). */
  public boolean isSequenceable() {
    return kind == Kind.LONG || kind == Kind.INT || kind == Kind.TIMESTAMP || kind == Kind.DATE;
  }

  /**
   * Whether values of this type read unchanged as {@code wider} in every encoding dimstream keeps them in (Avro and
   * JSON numbers, the binary state forms): {@code int → long}, and {@code decimal(p,s) → decimal(p',s)} with
   * {@code p' > p} (same unscaled value, same scale). The other widenings the Delta protocol allows
   * ({@code int → double}, integers to decimals, a decimal's scale up) would misread values already written.
   */
  public boolean widensTo(ColumnType wider) {
    if (kind == Kind.INT && wider.kind() == Kind.LONG) {
      return true;
    }
    return kind == Kind.DECIMAL && wider.kind() == Kind.DECIMAL && scale == wider.scale()
        && wider.precision() > precision;
  }

  @Override
  public String toString() {
    return kind == Kind.DECIMAL ? "decimal(" + precision + "," + scale + ")" : kind.name().toLowerCase(Locale.ROOT);
  }
}
