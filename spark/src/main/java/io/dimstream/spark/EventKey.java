package io.dimstream.spark;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Where a decoded record goes in the shuffle: its table bucket (the partition) and, within the bucket, its key, then
 * its arrival (input file, then position in the file), so that each key's events reach the fold together and in
 * arrival order. A record rejected while decoding has no key: it sorts first and is passed through as a dead letter.
 */
final class EventKey implements Comparable<EventKey>, Serializable {
  private static final long serialVersionUID = 1L;

  final int bucket;
  /** The encoded business key; null for a rejected record. */
  final byte[] key;
  final int file;
  final long position;

  EventKey(int bucket, byte[] key, int file, long position) {
    this.bucket = bucket;
    this.key = key;
    this.file = file;
    this.position = position;
  }

  @Override
  public int compareTo(EventKey o) {
    int c = Integer.compare(bucket, o.bucket);
    if (c != 0) {
      return c;
    }
    if (key == null || o.key == null) {
      c = Boolean.compare(key != null, o.key != null);
    } else {
      c = Arrays.compareUnsigned(key, o.key);
    }
    if (c != 0) {
      return c;
    }
    c = Integer.compare(file, o.file);
    return c != 0 ? c : Long.compare(position, o.position);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EventKey k && compareTo(k) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(key) + file) + Long.hashCode(position);
  }
}
