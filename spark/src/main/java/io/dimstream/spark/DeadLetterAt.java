package io.dimstream.spark;

import java.io.Serializable;
import java.util.Comparator;

/** A dead letter line and the arrival of its record: dead letters are written in input order. */
final class DeadLetterAt implements Serializable {
  private static final long serialVersionUID = 1L;
  static final Comparator<DeadLetterAt> INPUT_ORDER =
      Comparator.comparingInt((DeadLetterAt d) -> d.file).thenComparingLong(d -> d.position);

  final int file;
  final long position;
  final String line;

  DeadLetterAt(int file, long position, String line) {
    this.file = file;
    this.position = position;
    this.line = line;
  }
}
