package io.dimstream.query;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * Reads and prints query times. A time is a value of the dimension's first sequence column (an ISO-8601
 * timestamp, a date or a number, whichever that column is), handled as its sequence long: epoch microseconds,
 * epoch days or the number. A query "as of T" compares T with the first part of {@code valid_from}/{@code valid_to}.
 */
public final class SequenceTimes {
  private SequenceTimes() {}

  /**
   * Parses {@code text} as a value of the first sequence column.
   *
   * @throws QueryException {@link QueryException.Reason#BAD_INPUT} when it is not one, or is null/blank
   */
  public static long parse(DimensionSpec spec, String text) {
    if (text == null || text.isBlank()) {
      throw QueryErrors.badTime(spec, String.valueOf(text), "it is empty");
    }
    Column seq = spec.sequenceColumns().get(0);
    ColumnType t = seq.type();
    String s = text.trim();
    try {
      return switch (t.kind()) {
        case TIMESTAMP -> ColumnValues.sequenceLong(ColumnValues.parseTimestamp(s), t);
        case DATE -> LocalDate.parse(s).toEpochDay();
        default -> Long.parseLong(s);
      };
    } catch (IllegalArgumentException | DateTimeParseException | ArithmeticException e) {
      throw QueryErrors.badTime(spec, text, e instanceof NumberFormatException ? "not a whole number" : e.getMessage());
    }
  }

  /** The first-sequence-column value {@code value} as text (ISO-8601 UTC for timestamps). */
  public static String format(DimensionSpec spec, long value) {
    ColumnType t = spec.sequenceColumns().get(0).type();
    return String.valueOf(ColumnValues.sequenceValue(value, t));
  }
}
