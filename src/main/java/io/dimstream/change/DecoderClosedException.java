package io.dimstream.change;

import io.dimstream.DimstreamException;

/**
 * A decoder was closed while a record waited for what it needs to be read (its writer schema): not the record's
 * fault, so it must not reach the dead-letter topic; it is read again when processing resumes.
 */
public final class DecoderClosedException extends DimstreamException {
  DecoderClosedException(String message, Throwable cause) {
    super(message, cause);
  }
}
