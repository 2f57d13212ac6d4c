package io.dimstream.batch;

/**
 * A record the backfill rejects, with its line so dead letters are written in input order; {@code value} is null
 * while the record's bytes are at {@code valueAt} of its partition of encoded events (in memory or on disk).
 */
record DeadLetter(long line, String reason, String detail, byte[] value, long valueAt) {
  DeadLetter(long line, String reason, String detail, byte[] value) {
    this(line, reason, detail, value, -1);
  }

  /** The dead letter of {@code a}, whose record may still be on disk. */
  static DeadLetter of(Arrival a, String reason, String detail) {
    return new DeadLetter(a.line(), reason, detail, a.value(), a.valueAt());
  }

  DeadLetter withValue(byte[] v) {
    return new DeadLetter(line, reason, detail, v, -1);
  }
}
