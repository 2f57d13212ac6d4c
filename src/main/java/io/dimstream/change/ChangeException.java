package io.dimstream.change;

import io.dimstream.DimstreamException;

/** A change decoder that cannot be built for a spec; the message says what, why and how to fix it. */
public final class ChangeException extends DimstreamException {
  ChangeException(String message) {
    super(message);
  }
}
