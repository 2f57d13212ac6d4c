package io.dimstream.change;

/** Internal control flow: a record found invalid while decoding; cheap (no stack trace). */
final class RejectedRecord extends Exception {
  private static final long serialVersionUID = 1L;
  private final String reason;

  RejectedRecord(String reason, String detail) {
    super(detail, null, false, false);
    this.reason = reason;
  }

  Decoded.Rejected toDecoded() {
    return new Decoded.Rejected(reason, getMessage());
  }
}
