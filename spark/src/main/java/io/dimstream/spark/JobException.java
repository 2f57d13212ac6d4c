package io.dimstream.spark;

/** A bad argument or input of the job: its message says what is wrong and how to fix it. */
final class JobException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  JobException(String message) {
    super(message);
  }
}
