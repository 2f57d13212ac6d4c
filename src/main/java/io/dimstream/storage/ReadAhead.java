package io.dimstream.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;

/**
 * Reads of one object of a remote store by byte range, each fetching at least a block: a Parquet footer with its
 * length, or a small file's row groups, take one GET. Reads near the end take the last block, so that the footer's
 * length and the footer come together.
 */
final class ReadAhead implements RangeReader {
  /** A ranged read fetches at least this much. */
  static final int BLOCK = 1 << 20;

  /** Bytes {@code [start, start + bytes.length)} of an object of {@code objectLength} bytes. */
  record Range(long start, byte[] bytes, long objectLength) {
    boolean covers(long pos, int len) {
      return pos >= start && pos + len <= start + bytes.length;
    }
  }

  /** The ranged GET of a store, and its HEAD for the length. */
  interface Source {
    /** Bytes {@code [from, from + len)} (fewer at the object's end), with the object's length. */
    Range get(long from, long len) throws IOException;

    /** The object's length (a HEAD). */
    long length() throws IOException;

    /** The object, for messages. */
    String describe();
  }

  /** Fetches bytes {@code [from, from + len)} of one object (fewer at its end), with the object's length. */
  interface RangeGet {
    Range get(long from, long len) throws IOException;
  }

  /** A reader of {@code key} in {@code store}: ranges from {@code get}, the length (when unknown) from its HEAD. */
  static ReadAhead of(ObjectStore store, String key, RangeGet get, long knownLength) {
    return new ReadAhead(new Source() {
      @Override
      public Range get(long from, long len) throws IOException {
        return get.get(from, len);
      }

      @Override
      public long length() throws IOException {
        return store.head(key).orElseThrow(() -> new NoSuchFileException(store.describe(key))).size();
      }

      @Override
      public String describe() {
        return store.describe(key);
      }
    }, knownLength);
  }

  private final Source source;
  private long length;
  private Range block;

  ReadAhead(Source source, long knownLength) {
    this.source = source;
    this.length = knownLength;
  }

  @Override
  public long length() throws IOException {
    if (length < 0) {
      length = source.length();
    }
    return length;
  }

  @Override
  public void readFully(long position, byte[] buf, int off, int len) throws IOException {
    if (len == 0) {
      return;
    }
    if (block != null && block.covers(position, len)) {
      System.arraycopy(block.bytes, (int) (position - block.start), buf, off, len);
      return;
    }
    if (len >= BLOCK) {
      Range r = source.get(position, len);
      if (r.bytes.length < len) {
        throw new EOFException(source.describe() + " ends before byte " + (position + len));
      }
      System.arraycopy(r.bytes, 0, buf, off, len);
      return;
    }
    long from = position;
    if (length >= 0 && position + BLOCK > length) {
      from = Math.max(0, Math.min(position, length - BLOCK));
    }
    block = source.get(from, BLOCK);
    length = block.objectLength;
    if (!block.covers(position, len)) {
      throw new EOFException(source.describe() + " ends at " + length + ", before byte " + (position + len));
    }
    System.arraycopy(block.bytes, (int) (position - block.start), buf, off, len);
  }

  @Override
  public void close() {
    block = null;
  }
}
