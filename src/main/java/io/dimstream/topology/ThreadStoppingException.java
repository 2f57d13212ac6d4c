package io.dimstream.topology;

/**
 * Thrown by a processor whose failure is not about the record it was processing (state it cannot do without is out of
 * reach): the processing handler does not send the record to the dead-letter topic but stops the stream thread, so
 * that nothing is processed without that state.
 */
public class ThreadStoppingException extends IllegalStateException {
  public ThreadStoppingException(String message, Throwable cause) {
    super(message, cause);
  }
}
