package io.dimstream.expr;

import io.dimstream.DimstreamException;

/** An expression that failed on one event; the event goes to the dead-letter topic as {@code expression-error}. */
public final class ExpressionException extends DimstreamException {
  ExpressionException(String message, Throwable cause) {
    super(message, cause);
  }
}
