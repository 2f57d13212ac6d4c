package io.dimstream.compactor;

import io.dimstream.DimstreamException;

/** The compactor cannot go on; the message says why and what to do. */
public class CompactorException extends DimstreamException {
  public CompactorException(String message) {
    super(message);
  }

  public CompactorException(String message, Throwable cause) {
    super(message, cause);
  }
}
