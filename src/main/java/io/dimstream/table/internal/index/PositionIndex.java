package io.dimstream.table.internal.index;

/**
 * Version identity to (file, row position), for the rows of the current-partition files of one table version: how a
 * merge-on-read commit finds the rows it replaces without reading a file. A location packs a file id (assigned per
 * data file path) and the row's position in that file. Implementations are not thread safe: the owning
 * {@link CurrentRowIndex}'s monitor guards them.
 */
public interface PositionIndex {
  /** Entries held. */
  long size();

  /** The id of a data file path, assigned on first use. */
  int fileId(String path);

  /** The path of the file a location points into. */
  String file(long location);

  /** The location of {@code identity}, or -1 when absent. */
  long get(byte[] identity);

  /** Sets the location of {@code identity}. */
  void put(byte[] identity, long location);

  /** Removes {@code identity}; returns whether it was there. */
  boolean remove(byte[] identity);

  /** Heap bytes the index holds (what it costs the JVM's heap; memory outside the heap is not counted). */
  long bytes();

  static int fileOf(long location) {
    return (int) (location >>> 32);
  }

  static long positionOf(long location) {
    return location & 0xFFFFFFFFL;
  }

  static long location(int fileId, long position) {
    if (position < 0 || position > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("row position out of range: " + position);
    }
    return ((long) fileId << 32) | position;
  }
}
