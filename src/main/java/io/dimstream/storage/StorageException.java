package io.dimstream.storage;

import io.dimstream.DimstreamException;

/** A table location that cannot be used (unsupported scheme, malformed URI, bad storage setting). */
public class StorageException extends DimstreamException {
  public StorageException(String message) {
    super(message);
  }

  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
