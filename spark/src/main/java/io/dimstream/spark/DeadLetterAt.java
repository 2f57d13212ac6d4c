package io.dimstream.spark;

import java.io.Serializable;
import java.util.Comparator;

/** A dead letter line and the arrival of its record: dead letters are written in input order. */
record DeadLetterAt(int file, long position, String line) implements Serializable {
  static final Comparator<DeadLetterAt> INPUT_ORDER =
      Comparator.comparingInt(DeadLetterAt::file).thenComparingLong(DeadLetterAt::position);
}
