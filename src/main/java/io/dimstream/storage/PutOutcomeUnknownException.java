package io.dimstream.storage;

import java.io.IOException;

/**
 * A write whose outcome cannot be known: the request was sent and then failed (time-out, lost connection) before
 * the store answered. The object may or may not exist now; read it back to know.
 */
public class PutOutcomeUnknownException extends IOException {
  public PutOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
