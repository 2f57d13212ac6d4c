package io.dimstream.spark;

import java.io.Serializable;

/** A decoded record in the shuffle: an event (its encoded event and its record) or a dead letter's line. */
final class Decoded implements Serializable {
  private static final long serialVersionUID = 1L;

  final byte[] event;
  final byte[] record;
  /** The dead letter line, {@code {reason, detail, record}}; null for an event. */
  final String deadLetter;

  private Decoded(byte[] event, byte[] record, String deadLetter) {
    this.event = event;
    this.record = record;
    this.deadLetter = deadLetter;
  }

  static Decoded event(byte[] event, byte[] record) {
    return new Decoded(event, record, null);
  }

  static Decoded rejected(String deadLetter) {
    return new Decoded(null, null, deadLetter);
  }
}
