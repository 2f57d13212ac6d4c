package io.dimstream.query;

import io.dimstream.DimstreamException;

/**
 * A query that cannot be answered. {@link #reason()} says whose fault it is: the CLI maps {@link Reason#BAD_INPUT}
 * to exit code 2 and the rest to 1; the HTTP endpoint maps them to 400, 404 and 503. Built only by
 * {@link QueryErrors}.
 */
public final class QueryException extends DimstreamException {

  /** The closed set of reasons a query fails. */
  public enum Reason {
    /** The request itself is wrong: a bad time, an unknown column, a malformed key. */
    BAD_INPUT,
    /** The request is well formed but names something that does not exist: a table, a table version, a key. */
    NOT_FOUND,
    /** The data cannot be read: an unreadable table, an unreachable instance. */
    UNAVAILABLE
  }

  private final Reason reason;

  QueryException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
