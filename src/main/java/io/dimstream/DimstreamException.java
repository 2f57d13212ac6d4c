package io.dimstream;

/** Root of every error dimstream raises on purpose; its message says what happened, why and how to fix it. */
public class DimstreamException extends RuntimeException {
  public DimstreamException(String message) {
    super(message);
  }

  public DimstreamException(String message, Throwable cause) {
    super(message, cause);
  }
}
