package io.dimstream.compactor;

/** Another compactor holds the table's lease: this one must not write (it may stand by and try again later). */
public final class LeaseHeldException extends CompactorException {
  public LeaseHeldException(String message) {
    super(message);
  }
}
