package io.dimstream.source;

import io.dimstream.DimstreamException;

/** A database source that cannot start or stopped: the message says what happened, why and how to fix it. */
public final class SourceException extends DimstreamException {
  SourceException(String message) {
    super(message);
  }

  SourceException(String message, Throwable cause) {
    super(message, cause);
  }
}
