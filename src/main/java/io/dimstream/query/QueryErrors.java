package io.dimstream.query;

import io.dimstream.query.QueryException.Reason;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;

/** Builds every {@link QueryException}: what happened, why, and how to fix it. */
public final class QueryErrors {
  private QueryErrors() {}

  static QueryException badTime(DimensionSpec spec, String text, String why) {
    Column seq = spec.sequenceColumns().get(0);
    return new QueryException(Reason.BAD_INPUT, "Cannot read the time \"" + text + "\": " + why + ". Times of "
        + spec.name() + " are values of its sequence column '" + seq.name() + "' (" + seq.type() + "); "
        + "give " + example(seq.type()) + ".", null);
  }

  private static String example(ColumnType t) {
    return switch (t.kind()) {
      case TIMESTAMP -> "an ISO-8601 timestamp with offset, e.g. 2024-01-01T06:00:00.500Z (or epoch milliseconds)";
      case DATE -> "an ISO-8601 date, e.g. 2024-01-31";
      default -> "a whole number, e.g. 1042";
    };
  }

  static QueryException badRange(String from, String to) {
    return new QueryException(Reason.BAD_INPUT, "The range [" + from + ", " + to + ") is empty: --from must be "
        + "before --to.", null);
  }

  static QueryException emptyKey() {
    return new QueryException(Reason.BAD_INPUT, "The key is empty. Give the key value (42) or, for a composite "
        + "key, every key column as col=value pairs (a=1,b=x).", null);
  }

  static QueryException unknownKeyColumn(DimensionSpec spec, String column) {
    return new QueryException(Reason.BAD_INPUT, "'" + column + "' is not a key column of " + spec.name()
        + "; its key columns are " + spec.key() + ". Give the key as " + keyExample(spec) + ".", null);
  }

  static QueryException missingKeyColumns(DimensionSpec spec, String text, Collection<String> missing) {
    return new QueryException(Reason.BAD_INPUT, "The key \"" + text + "\" lacks the key column(s) " + missing
        + " of " + spec.name() + ". Give every key column: " + keyExample(spec) + ".", null);
  }

  static QueryException duplicateKeyColumn(String text, String column) {
    return new QueryException(Reason.BAD_INPUT, "The key \"" + text + "\" gives '" + column + "' twice. "
        + "Give each key column once.", null);
  }

  static QueryException malformedKeyPart(DimensionSpec spec, String text, String part) {
    return new QueryException(Reason.BAD_INPUT, "Cannot read \"" + part + "\" in the key \"" + text
        + "\": expected col=value. Give the key as " + keyExample(spec) + ".", null);
  }

  static QueryException badKeyValue(String column, ColumnType type, String value, String why) {
    return new QueryException(Reason.BAD_INPUT, "The key column '" + column + "' is " + type + " but got \""
        + value + "\": " + why + ".", null);
  }

  static QueryException unknownFilterColumn(DimensionSpec spec, String column) {
    return new QueryException(Reason.BAD_INPUT, "Cannot filter on '" + column + "': " + spec.name()
        + " has no such key or attribute column. Its columns are " + spec.versionColumns().keySet() + ".", null);
  }

  static QueryException malformedFilter(String text) {
    return new QueryException(Reason.BAD_INPUT, "Cannot read the filter \"" + text + "\": expected col=value, "
        + "e.g. --where city=Paris (use col= for a null value).", null);
  }

  static QueryException badFilterValue(String column, ColumnType type, String value, String why) {
    return new QueryException(Reason.BAD_INPUT, "The filter on '" + column + "' (" + type + ") cannot use \""
        + value + "\": " + why + ".", null);
  }

  static String keyExample(DimensionSpec spec) {
    List<Column> keys = spec.keyColumns();
    if (keys.size() == 1) {
      return "the bare value (42) or " + keys.get(0).name() + "=42";
    }
    StringBuilder b = new StringBuilder();
    for (Column c : keys) {
      b.append(b.length() == 0 ? "" : ",").append(c.name()).append("=...");
    }
    return b.toString();
  }

  public static QueryException noTable(Object dir) {
    return new QueryException(Reason.NOT_FOUND, dir + " is not a dimstream table: it has no _delta_log. "
        + "Pass the table location the service writes (service.table_path in the spec, by default <data_dir>/tables/<name>) with --table.", null);
  }

  public static QueryException noTableVersion(Object dir, long version, long latest) {
    return new QueryException(Reason.NOT_FOUND, dir + ": cannot load table version " + version
        + " as it does not exist. The latest available version is " + latest
        + " (see `dimstream table history`).", null);
  }

  public static QueryException noVersionAtTimestamp(Object dir, String timestamp, String first) {
    return new QueryException(Reason.NOT_FOUND, dir + ": no table version was committed at or before "
        + timestamp + "; the first commit is from " + first + ". Pass a later --table-timestamp.", null);
  }

  public static QueryException unreadableTable(Object dir, Throwable cause) {
    return new QueryException(Reason.UNAVAILABLE, "Cannot read the table " + dir + ": " + cause.getMessage(),
        cause);
  }

  public static QueryException wrapped(Reason reason, String message, Throwable cause) {
    return new QueryException(reason, message, cause);
  }

  /** A URL part whose percent-encoding is malformed or does not decode to UTF-8 text. */
  public static QueryException badPercentEncoding(String what, String text, String why) {
    return new QueryException(Reason.BAD_INPUT, "Cannot read the " + what + " \"" + text + "\": " + why
        + ". Percent-encode the URL as UTF-8: each '%' is followed by two hex digits (a space is %20, '%' is %25).",
        null);
  }

  /** A request URL that the HTTP parser could not decode. */
  public static QueryException malformedUrl(String why) {
    return new QueryException(Reason.BAD_INPUT, "Cannot read the request URL: " + why + ". Percent-encode the URL "
        + "as UTF-8: each '%' is followed by two hex digits (a space is %20, '%' is %25).", null);
  }

  /** A numeric query parameter that is not a whole number in its allowed range. */
  public static QueryException outOfRange(String parameter, String text, long min, long max) {
    return new QueryException(Reason.BAD_INPUT, "The parameter " + parameter + " must be a whole number between "
        + min + " and " + max + ", got \"" + text + "\". Give ?" + parameter + "=N with " + min + " <= N <= " + max
        + ".", null);
  }

  public static QueryException unknownDimension(String name, Collection<String> known) {
    return new QueryException(Reason.NOT_FOUND, "No dimension '" + name + "' is served here; this service serves "
        + known + ".", null);
  }

  public static QueryException noVersion(DimensionSpec spec, String keyText, String when) {
    return new QueryException(Reason.NOT_FOUND, "Key " + keyText + " of " + spec.name() + " has no version "
        + when + ".", null);
  }

  public static QueryException ownerUnreachable(String keyText, String owner, Throwable cause) {
    return new QueryException(Reason.UNAVAILABLE, "Key " + keyText + " is owned by the instance " + owner
        + ", which did not answer: " + cause.getMessage() + ". Retry once the group has rebalanced.", cause);
  }

  public static QueryException ownerRefusedForward(String keyText, String owner, int status) {
    return new QueryException(Reason.UNAVAILABLE, "Key " + keyText + " is owned by the instance " + owner
        + ", which refused this instance's credentials (HTTP " + status + "). Fix: give every instance of the "
        + "dimension the same service.http.auth token and certificates its service.http.tls.client_ca trusts.", null);
  }
}
