package io.dimstream.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
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
            return decimal(new BigDecimal(node.asText().trim()), type);
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
            return LocalDate.parse(node.asText().trim());
          } catch (DateTimeParseException e) {
            // fall through to the error
          }
        }
        if (node.isIntegralNumber()) {
          return LocalDate.ofEpochDay(node.asLong());
        }
        throw expected("an ISO-8601 date (2024-01-31) or epoch days", node);
      case TIMESTAMP:
        if (node.isIntegralNumber() && node.canConvertToLong()) {
          return Instant.ofEpochMilli(node.asLong());
        }
        if (node.isTextual()) {
          return parseTimestamp(node.asText().trim());
        }
        throw expected("an ISO-8601 timestamp with offset or epoch milliseconds", node);
      default:
        throw new IllegalStateException(type.toString());
    }
  }

  /** ISO-8601 with an offset ({@code 2024-01-01T06:00:00.5Z}, {@code +02:00}), or a string of epoch millis. */
  public static Instant parseTimestamp(String text) {
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      if (text.matches("-?\\d+")) {
        return Instant.ofEpochMilli(Long.parseLong(text));
      }
      throw new IllegalArgumentException("expected an ISO-8601 timestamp with offset (2024-01-01T06:00:00Z) "
          + "or epoch milliseconds, got \"" + text + "\"");
    }
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
    return instant.toString();
  }

  /** Coerces a decimal to the column's scale; throws when it would lose digits or exceed the precision. */
  public static BigDecimal decimal(BigDecimal v, ColumnType type) {
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
      case TIMESTAMP -> {
        Instant i = (Instant) value;
        yield ChronoUnit.MICROS.between(Instant.EPOCH, i);
      }
      case DATE -> ((LocalDate) value).toEpochDay();
      case LONG -> (Long) value;
      case INT -> ((Integer) value).longValue();
      default -> throw new IllegalArgumentException(type + " cannot be a sequence column");
    };
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
    String shown = got.toString();
    if (shown.length() > 80) {
      shown = shown.substring(0, 77) + "...";
    }
    return new IllegalArgumentException("expected " + what + ", got " + shown);
  }
}
