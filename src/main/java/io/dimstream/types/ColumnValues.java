package io.dimstream.types;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * Converts column values between JSON and their in-memory Java form (see {@link ColumnType}), and maps
 * sequence values onto longs. Every parse failure is an {@link IllegalArgumentException} whose message says
 * what was expected.
 */
public final class ColumnValues {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /** The earliest timestamp a column holds: timestamps are stored as epoch microseconds in a long. */
  public static final Instant MIN_TIMESTAMP = fromEpochMicros(Long.MIN_VALUE);
  /** The latest timestamp a column holds. */
  public static final Instant MAX_TIMESTAMP = fromEpochMicros(Long.MAX_VALUE);
  /** The earliest date a column holds: dates are stored as epoch days in an int (Parquet, Delta, Avro). */
  public static final LocalDate MIN_DATE = LocalDate.ofEpochDay(Integer.MIN_VALUE);
  /** The latest date a column holds. */
  public static final LocalDate MAX_DATE = LocalDate.ofEpochDay(Integer.MAX_VALUE);

  private ColumnValues() {}

  /** Parses a JSON value; JSON null (or a missing node) gives null. */
  public static Object fromJson(JsonNode node, ColumnType type) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    switch (type.kind()) {
      case LONG:
        if (node.isIntegralNumber() && node.canConvertToLong()) {
          return node.asLong();
        }
        if (node.isTextual()) {
          try {
            return Long.parseLong(node.asText().trim());
          } catch (NumberFormatException e) {
            // fall through to the error
          }
        }
        throw expected("a whole number (long)", node);
      case INT:
        if (node.isIntegralNumber() && node.canConvertToInt()) {
          return node.asInt();
        }
        if (node.isTextual()) {
          try {
            return Integer.parseInt(node.asText().trim());
          } catch (NumberFormatException e) {
            // fall through to the error
          }
        }
        throw expected("a whole number (int)", node);
      case DOUBLE:
        if (node.isNumber()) {
          return node.asDouble();
        }
        if (node.isTextual()) {
          try {
            return Double.parseDouble(node.asText().trim());
          } catch (NumberFormatException e) {
            // fall through to the error
          }
        }
        throw expected("a number (double)", node);
      case DECIMAL:
        if (node.isNumber() || node.isTextual()) {
          try {
            return decimal(node.isNumber() ? node.decimalValue() : new BigDecimal(node.asText().trim()), type);
          } catch (NumberFormatException e) {
            // fall through to the error
          }
        }
        throw expected("a decimal number", node);
      case BOOLEAN:
        if (node.isBoolean()) {
          return node.asBoolean();
        }
        if (node.isTextual() && (node.asText().equalsIgnoreCase("true") || node.asText().equalsIgnoreCase("false"))) {
          return Boolean.parseBoolean(node.asText());
        }
        throw expected("true or false", node);
      case STRING:
        if (node.isValueNode()) {
          return node.asText();
        }
        throw expected("a string", node);
      case DATE:
        if (node.isTextual()) {
          try {
            return date(LocalDate.parse(node.asText().trim()));
          } catch (DateTimeParseException e) {
            // fall through to the error
          }
        }
        if (node.isIntegralNumber()) {
          if (!node.canConvertToInt()) {
            throw outOfRange("epoch day " + node.asText(), "dates", MIN_DATE + " to " + MAX_DATE
                + " (epoch days " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + ")");
          }
          return date(LocalDate.ofEpochDay(node.asInt()));
        }
        throw expected("an ISO-8601 date (2024-01-31) or epoch days", node);
      case TIMESTAMP:
        if (node.isIntegralNumber() && node.canConvertToLong()) {
          return timestamp(Instant.ofEpochMilli(node.asLong()));
        }
        if (node.isIntegralNumber()) {
          throw outOfRange("epoch millisecond " + node.asText(), "timestamps", timestampRange());
        }
        if (node.isTextual()) {
          return timestamp(parseTimestamp(node.asText().trim()));
        }
        throw expected("an ISO-8601 timestamp with offset or epoch milliseconds", node);
      default:
        throw new IllegalStateException(type.toString());
    }
  }

  /** ISO-8601 with an offset ({@code 2024-01-01T06:00:00.5Z}, {@code +02:00}), or a string of epoch millis. */
  public static Instant parseTimestamp(String text) {
    Instant fast = parseCanonicalUtc(text);
    if (fast != null) {
      return fast;
    }
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      if (text.matches("-?\\d+")) {
        try {
          return Instant.ofEpochMilli(Long.parseLong(text));
        } catch (NumberFormatException tooLong) {
          throw outOfRange("epoch millisecond " + text, "timestamps", timestampRange());
        }
      }
      throw new IllegalArgumentException("expected an ISO-8601 timestamp with offset (2024-01-01T06:00:00Z) "
          + "or epoch milliseconds, got \"" + text + "\"");
    }
  }

  /**
   * The fast path for the form every dimstream record uses, {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z} (what
   * {@link Instant#toString()} writes): parsed by hand, since the general ISO parser dominates the cost of decoding
   * stored events and version records. Returns null for anything else, which the general parser then handles.
   */
  static Instant parseCanonicalUtc(String t) {
    int n = t.length();
    if (n < 20 || n > 30 || t.charAt(n - 1) != 'Z' || t.charAt(4) != '-' || t.charAt(7) != '-' || t.charAt(10) != 'T'
        || t.charAt(13) != ':' || t.charAt(16) != ':') {
      return null;
    }
    int year = digits(t, 0, 4);
    int month = digits(t, 5, 7);
    int day = digits(t, 8, 10);
    int hour = digits(t, 11, 13);
    int minute = digits(t, 14, 16);
    int second = digits(t, 17, 19);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59
        || second < 0 || second > 59) {
      return null;
    }
    int nanos = 0;
    if (n > 20) {
      if (t.charAt(19) != '.' || n == 21) {
        return null;
      }
      int fraction = digits(t, 20, n - 1);
      if (fraction < 0) {
        return null;
      }
      nanos = fraction;
      for (int i = n - 1 - 20; i < 9; i++) {
        nanos *= 10;
      }
    } else if (t.charAt(19) != 'Z') {
      return null;
    }
    if (day > java.time.YearMonth.of(year, month).lengthOfMonth()) {
      return null; // let the general parser say what is wrong
    }
    long epochDay = LocalDate.of(year, month, day).toEpochDay();
    return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
  }

  /** The non-negative number in {@code t[from, to)}, or -1 when a character is not an ASCII digit. */
  private static int digits(String t, int from, int to) {
    int v = 0;
    for (int i = from; i < to; i++) {
      char c = t.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  /** Renders a value as JSON: timestamps as ISO-8601 UTC strings, dates as ISO dates, decimals as numbers. */
  public static JsonNode toJson(Object value, ColumnType type) {
    if (value == null) {
      return NODES.nullNode();
    }
    return switch (type.kind()) {
      case LONG -> NODES.numberNode((Long) value);
      case INT -> NODES.numberNode((Integer) value);
      case DOUBLE -> NODES.numberNode((Double) value);
      case DECIMAL -> NODES.numberNode((BigDecimal) value);
      case BOOLEAN -> NODES.booleanNode((Boolean) value);
      case STRING -> NODES.textNode((String) value);
      case DATE -> NODES.textNode(value.toString());
      case TIMESTAMP -> NODES.textNode(formatTimestamp((Instant) value));
    };
  }

  /** ISO-8601 UTC, as {@link Instant#toString()}: {@code 2024-01-01T06:00:00Z}, {@code 2024-01-01T06:00:00.500Z}. */
  public static String formatTimestamp(Instant instant) {
    long seconds = instant.getEpochSecond();
    if (seconds < 0 || seconds > LAST_SECOND_OF_9999) {
      return instant.toString(); // signed or five-digit years: Instant's own rules
    }
    // Written here instead of through DateTimeFormatter (about 7 % of the stream thread when every version record
    // formatted its validity that way); the same characters, which TimestampFormatProperties holds for any instant.
    long days = seconds / 86_400;
    int secondOfDay = (int) (seconds % 86_400);
    int nano = instant.getNano();
    // civil date from days since 1970-01-01 (proleptic Gregorian, as java.time), in 400-year eras
    long z = days + 719_468;
    long era = z / 146_097;
    long dayOfEra = z - era * 146_097;
    long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long mp = (5 * dayOfYear + 2) / 153;
    int day = (int) (dayOfYear - (153 * mp + 2) / 5 + 1);
    int month = (int) (mp < 10 ? mp + 3 : mp - 9);
    int year = (int) (yearOfEra + era * 400 + (month <= 2 ? 1 : 0));
    byte[] b = new byte[nano == 0 ? 20 : nano % 1_000_000 == 0 ? 24 : nano % 1_000 == 0 ? 27 : 30];
    writeDigits(b, 0, year, 4);
    b[4] = '-';
    writeDigits(b, 5, month, 2);
    b[7] = '-';
    writeDigits(b, 8, day, 2);
    b[10] = 'T';
    writeDigits(b, 11, secondOfDay / 3_600, 2);
    b[13] = ':';
    writeDigits(b, 14, secondOfDay / 60 % 60, 2);
    b[16] = ':';
    writeDigits(b, 17, secondOfDay % 60, 2);
    if (nano != 0) {
      b[19] = '.';
      int width = b.length - 21;
      writeDigits(b, 20, nano / POWERS_OF_TEN[9 - width], width);
    }
    b[b.length - 1] = 'Z';
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  /** 9999-12-31T23:59:59Z in epoch seconds: the last instant {@link #formatTimestamp} writes itself. */
  private static final long LAST_SECOND_OF_9999 = 253_402_300_799L;
  private static final int[] POWERS_OF_TEN = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
      100_000_000};

  /** Writes {@code value} as {@code width} decimal digits, zero-padded, at {@code at}. */
  private static void writeDigits(byte[] b, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      b[i] = (byte) ('0' + value % 10);
      value /= 10;
    }
  }

  /**
   * A timestamp a column can hold (see {@link #MIN_TIMESTAMP}, {@link #MAX_TIMESTAMP}); throws
   * {@link IllegalArgumentException} naming the range otherwise.
   */
  public static Instant timestamp(Instant t) {
    if (t.isBefore(MIN_TIMESTAMP) || t.isAfter(MAX_TIMESTAMP)) {
      throw outOfRange("timestamp " + t, "timestamps", timestampRange());
    }
    return t;
  }

  /** A date a column can hold (see {@link #MIN_DATE}, {@link #MAX_DATE}); throws naming the range otherwise. */
  public static LocalDate date(LocalDate d) {
    if (d.isBefore(MIN_DATE) || d.isAfter(MAX_DATE)) {
      throw outOfRange("date " + d, "dates", MIN_DATE + " to " + MAX_DATE);
    }
    return d;
  }

  private static String timestampRange() {
    return MIN_TIMESTAMP + " to " + MAX_TIMESTAMP + " (epoch microseconds in a long)";
  }

  private static IllegalArgumentException outOfRange(String what, String kind, String range) {
    return new IllegalArgumentException(what + " is outside the range of " + kind + " a column holds: " + range);
  }

  /** The instant {@code v} microseconds after the epoch: the inverse of {@link #epochMicros}. */
  public static Instant fromEpochMicros(long v) {
    return Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1000L);
  }

  /** Coerces a decimal to the column's scale; throws when it would lose digits or exceed the precision. */
  public static BigDecimal decimal(BigDecimal v, ColumnType type) {
    // checked before setScale: rescaling 1E+999999999 or 1E-999999999 would compute a billion-digit number
    if ((long) v.precision() - v.scale() > type.precision() - type.scale() && v.signum() != 0) {
      throw new IllegalArgumentException("value " + shortText(v) + " has more than " + (type.precision() - type.scale())
          + " digits before the decimal point, the most " + type + " holds");
    }
    if (v.signum() == 0) {
      v = BigDecimal.ZERO;
    } else if (v.scale() > type.scale() && v.stripTrailingZeros().scale() > type.scale()) {
      throw new IllegalArgumentException("expected at most " + type.scale() + " decimal places for " + type
          + ", got " + shortText(v));
    }
    BigDecimal scaled;
    try {
      scaled = v.setScale(type.scale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("expected at most " + type.scale() + " decimal places for " + type
          + ", got " + v.toPlainString());
    }
    if (scaled.precision() > type.precision()) {
      throw new IllegalArgumentException("value " + v.toPlainString() + " has more than " + type.precision()
          + " digits, the precision of " + type);
    }
    return scaled;
  }

  /** The long a sequence value orders by: epoch microseconds, epoch days, or the number itself. */
  public static long sequenceLong(Object value, ColumnType type) {
    return switch (type.kind()) {
      case TIMESTAMP -> epochMicros((Instant) value);
      case DATE -> ((LocalDate) value).toEpochDay();
      case LONG -> (Long) value;
      case INT -> ((Integer) value).longValue();
      default -> throw new IllegalArgumentException(type + " cannot be a sequence column");
    };
  }

  /**
   * Epoch microseconds of {@code t}, exact over the whole range a column holds ({@link #MIN_TIMESTAMP} to
   * {@link #MAX_TIMESTAMP}); {@code ChronoUnit.MICROS.between} overflows past the year 2262, as it counts nanos.
   *
   * @throws ArithmeticException when {@code t} is outside that range
   */
  public static long epochMicros(Instant t) {
    long seconds = t.getEpochSecond();
    long micros = t.getNano() / 1000;
    if (seconds < 0 && micros > 0) {
      // keeps the product inside the long range at the lower edge
      return Math.addExact(Math.multiplyExact(seconds + 1, 1_000_000L), micros - 1_000_000L);
    }
    return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), micros);
  }

  /** The inverse of {@link #sequenceLong}. */
  public static Object sequenceValue(long value, ColumnType type) {
    return switch (type.kind()) {
      case TIMESTAMP -> Instant.EPOCH.plus(value, ChronoUnit.MICROS);
      case DATE -> LocalDate.ofEpochDay(value);
      case LONG -> value;
      case INT -> (int) value;
      default -> throw new IllegalArgumentException(type + " cannot be a sequence column");
    };
  }

  private static IllegalArgumentException expected(String what, JsonNode got) {
    return new IllegalArgumentException("expected " + what + ", got " + shown(got));
  }

  private static String shown(JsonNode got) {
    String shown = got.toString();
    return shown.length() > 80 ? shown.substring(0, 77) + "..." : shown;
  }

  private static String shortText(BigDecimal v) {
    String t = Math.abs((long) v.scale()) > 60 ? v.toString() : v.toPlainString();
    return t.length() > 80 ? t.substring(0, 77) + "..." : t;
  }
}
