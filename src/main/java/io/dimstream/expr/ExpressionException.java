package io.dimstream.expr;

import io.dimstream.DimstreamException;
import io.dimstream.model.Sequence;

/** An expression that failed on one event; the event goes to the dead-letter topic as {@code expression-error}. */
public final class ExpressionException extends DimstreamException {
  private final Sequence sequence;

  ExpressionException(String message, Sequence sequence, Throwable cause) {
    super(message, cause);
    this.sequence = sequence;
  }

  /** The sequence of the event the expression failed on: a later, stored event when a late event re-derives it. */
  public Sequence sequence() {
    return sequence;
  }
}
