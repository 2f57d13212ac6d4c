package io.dimstream.batch;

import io.dimstream.DimstreamException;

/** An offline load could not be applied: a snapshot row rejected, a snapshot older than the table. */
public final class BatchException extends DimstreamException {
  BatchException(String message) {
    super(message);
  }

  BatchException(String message, Throwable cause) {
    super(message, cause);
  }
}
