package io.dimstream.table.internal.dv;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import org.roaringbitmap.RoaringBitmap;

/**
 * A set of 64-bit row positions in Delta's "RoaringBitmapArray" portable format: a 32-bit roaring bitmap of the low
 * halves per distinct high half. Serialised as the magic number 1681511377 (int32, little-endian), the number of
 * bitmaps (int64 LE), then per bitmap its high half (int32 LE) and the bitmap in roaring's portable format.
 */
public final class RoaringBitmapArray {
  /** The protocol's magic number of the portable format. */
  public static final int PORTABLE_MAGIC = 1681511377;
  /** The magic number of Delta's older native format, which the protocol does not allow in tables. */
  static final int NATIVE_MAGIC = 1681511376;

  private final TreeMap<Integer, RoaringBitmap> bitmaps = new TreeMap<>();

  /** Adds a row position (0-based, non-negative). */
  public void add(long position) {
    if (position < 0) {
      throw new IllegalArgumentException("row positions are non-negative; got " + position);
    }
    bitmaps.computeIfAbsent((int) (position >>> 32), k -> new RoaringBitmap()).add((int) position);
  }

  /** Adds every position of {@code other} (merging a DV another writer already put on a file). */
  public void addAll(RoaringBitmapArray other) {
    other.bitmaps.forEach((high, bitmap) -> bitmaps.merge(high, bitmap.clone(), (a, b) -> {
      a.or(b);
      return a;
    }));
  }

  public boolean contains(long position) {
    if (position < 0) {
      return false;
    }
    RoaringBitmap low = bitmaps.get((int) (position >>> 32));
    return low != null && low.contains((int) position);
  }

  /** The highest position in the set; -1 when it is empty. */
  public long last() {
    for (Map.Entry<Integer, RoaringBitmap> e : bitmaps.descendingMap().entrySet()) {
      if (!e.getValue().isEmpty()) {
        return (Integer.toUnsignedLong(e.getKey()) << 32) | Integer.toUnsignedLong(e.getValue().last());
      }
    }
    return -1;
  }

  /** How many positions the set holds (a DV's {@code cardinality}). */
  public long cardinality() {
    long n = 0;
    for (RoaringBitmap b : bitmaps.values()) {
      n += b.getLongCardinality();
    }
    return n;
  }

  /** Calls {@code consumer} with every position in ascending order. */
  public void forEach(LongConsumer consumer) {
    for (Map.Entry<Integer, RoaringBitmap> e : bitmaps.entrySet()) {
      long high = ((long) e.getKey()) << 32;
      e.getValue().forEach((int low) -> consumer.accept(high | Integer.toUnsignedLong(low)));
    }
  }

  /** The portable serialisation: what a DV file block or an inline DV holds. */
  public byte[] serialize() {
    for (RoaringBitmap b : bitmaps.values()) {
      b.runOptimize();
    }
    int size = 4 + 8;
    for (RoaringBitmap b : bitmaps.values()) {
      size += 4 + b.serializedSizeInBytes();
    }
    ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putInt(PORTABLE_MAGIC);
    out.putLong(bitmaps.size());
    for (Map.Entry<Integer, RoaringBitmap> e : bitmaps.entrySet()) {
      out.putInt(e.getKey());
      e.getValue().serialize(out);
    }
    return out.array();
  }

  /**
   * Reads the portable serialisation.
   *
   * @throws IllegalArgumentException when the bytes are not that format (wrong magic number, truncated, trailing
   *     bytes, high halves out of order); the message says which
   */
  public static RoaringBitmapArray deserialize(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    RoaringBitmapArray result = new RoaringBitmapArray();
    try {
      int magic = in.getInt();
      if (magic == NATIVE_MAGIC) {
        throw new IllegalArgumentException("the bitmap uses Delta's native format (magic " + magic
            + "), which the protocol does not allow in a table; only the portable format (" + PORTABLE_MAGIC
            + ") is read");
      }
      if (magic != PORTABLE_MAGIC) {
        throw new IllegalArgumentException("the bitmap does not start with the magic number " + PORTABLE_MAGIC
            + " of Delta's RoaringBitmapArray (found " + magic + ")");
      }
      long count = in.getLong();
      if (count < 0 || count > in.remaining() / 4) {
        throw new IllegalArgumentException("the bitmap claims " + count + " parts in " + bytes.length + " bytes");
      }
      long previousHigh = -1;
      for (long i = 0; i < count; i++) {
        long high = Integer.toUnsignedLong(in.getInt());
        if (high <= previousHigh) {
          throw new IllegalArgumentException("the bitmap's parts are not in ascending order at part " + i);
        }
        previousHigh = high;
        RoaringBitmap bitmap = new RoaringBitmap();
        ByteBuffer rest = in.slice().order(ByteOrder.LITTLE_ENDIAN);
        bitmap.deserialize(rest);
        in.position(in.position() + bitmap.serializedSizeInBytes());
        result.bitmaps.put((int) high, bitmap);
      }
    } catch (BufferUnderflowException | IOException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("the bitmap is truncated (" + bytes.length + " bytes)", e);
    }
    if (in.hasRemaining()) {
      throw new IllegalArgumentException("the bitmap has " + in.remaining() + " bytes after its end");
    }
    return result;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RoaringBitmapArray other && bitmaps.equals(other.bitmaps);
  }

  @Override
  public int hashCode() {
    return bitmaps.hashCode();
  }

  @Override
  public String toString() {
    return "RoaringBitmapArray[cardinality=" + cardinality() + "]";
  }
}
