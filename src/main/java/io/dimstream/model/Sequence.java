package io.dimstream.model;

import java.util.Arrays;

/**
 * The position of an event in its key's history: one long per sequence column (timestamps as epoch
 * microseconds, dates as epoch days, numbers as themselves), compared left to right.
 */
public final class Sequence implements Comparable<Sequence> {
  private final long[] parts;

  private Sequence(long[] parts) {
    if (parts.length == 0) {
      throw new IllegalArgumentException("a sequence has at least one part");
    }
    this.parts = parts;
  }

  public static Sequence of(long... parts) {
    return new Sequence(parts.clone());
  }

  public int size() {
    return parts.length;
  }

  public long part(int i) {
    return parts[i];
  }

  /** The first part: the one {@code valid_from}/{@code valid_to} show and the lateness horizon counts in. */
  public long first() {
    return parts[0];
  }

  public long[] parts() {
    return parts.clone();
  }

  @Override
  public int compareTo(Sequence o) {
    return Arrays.compare(parts, o.parts);
  }

  public boolean isBefore(Sequence o) {
    return compareTo(o) < 0;
  }

  public boolean isAfter(Sequence o) {
    return compareTo(o) > 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Sequence s && Arrays.equals(parts, s.parts);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(parts);
  }

  @Override
  public String toString() {
    return parts.length == 1 ? Long.toString(parts[0]) : Arrays.toString(parts);
  }
}
