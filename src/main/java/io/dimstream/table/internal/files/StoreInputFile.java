package io.dimstream.table.internal.files;

import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.RangeReader;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet {@link InputFile} over an object of the table's store: each read is a byte-range read of the object
 * (on an object store a ranged GET; the store reads ahead a block, so a footer is one request). On an object store
 * the file's tail (footer, bloom filters, page indexes) comes from {@link DataFileTails} once read: opening the file
 * again, and deciding from its statistics and bloom filters that a row group holds no wanted row, cost no request.
 *
 * <p>For a key lookup ({@link #wholeRowGroups}) the first read inside a row group of at most {@link #MAX_GROUP}
 * bytes fetches the whole row group in one request: the reader then takes the pages the page indexes pick, a few of
 * each column, from memory instead of one request per column. A larger row group is read by the pages wanted.
 */
public final class StoreInputFile implements InputFile {
  /** The largest row group a lookup fetches whole. */
  static final int MAX_GROUP = 16 << 20;
  /** Reads shorter than this are served from a buffer of {@link #READ_AHEAD} bytes read at once. */
  private static final int SMALL_READ = 1024;
  private static final int READ_AHEAD = 64 << 10;

  private final ObjectStore store;
  private final String key;
  private long length;
  private final boolean wholeRowGroups;

  /** {@code length}: the object's length when known (from the log or a listing), else -1. */
  public StoreInputFile(ObjectStore store, String key, long length) {
    this(store, key, length, false);
  }

  private StoreInputFile(ObjectStore store, String key, long length, boolean wholeRowGroups) {
    this.store = store;
    this.key = key;
    this.length = length;
    this.wholeRowGroups = wholeRowGroups;
  }

  /** The same file, each row group fetched whole on an object store at the first read inside it. */
  StoreInputFile wholeRowGroups() {
    return new StoreInputFile(store, key, length, true);
  }

  @Override
  public long getLength() throws IOException {
    if (length < 0) {
      try (RangeReader r = store.openRanged(key, -1)) {
        length = r.length();
      }
    }
    return length;
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    RangeReader reader = store.openRanged(key, length);
    if (store.location().isLocal()) {
      return new RangeStream(reader, null, false);
    }
    try {
      length = reader.length();
      String id = store.describe(key) + '#' + length;
      DataFileTails.Tail tail = DataFileTails.get(id);
      if (tail == null) {
        // the read a footer needs anyway, in one request: the reader keeps these bytes for the reads that follow
        byte[] last = new byte[(int) Math.min(length, DataFileTails.FETCH)];
        reader.readFully(length - last.length, last, 0, last.length);
        tail = DataFileTails.cut(last, length);
        if (tail != null) {
          DataFileTails.put(id, tail);
        }
      }
      return new RangeStream(reader, tail, wholeRowGroups);
    } catch (IOException | RuntimeException e) {
      reader.close();
      throw e;
    }
  }

  @Override
  public String toString() {
    return store.describe(key);
  }

  private static final class RangeStream extends SeekableInputStream {
    private final RangeReader reader;
    /** The file's cached tail; null when there is none. */
    private final DataFileTails.Tail tail;
    private final boolean wholeRowGroups;
    /** The row group fetched whole last, from byte {@code groupStart}; null when none is. */
    private byte[] group;
    private long groupStart;
    private long pos;
    private final byte[] one = new byte[1];
    /** Bytes read ahead for small reads, from byte {@code aheadStart}; null until the first small read. */
    private byte[] ahead;
    private long aheadStart;
    private int aheadLength;

    RangeStream(RangeReader reader, DataFileTails.Tail tail, boolean wholeRowGroups) {
      this.reader = reader;
      this.tail = tail;
      this.wholeRowGroups = wholeRowGroups;
    }

    private void readAt(long position, byte[] buf, int off, int len) throws IOException {
      if (tail != null && tail.covers(position, len)) {
        System.arraycopy(tail.bytes(), (int) (position - tail.start()), buf, off, len);
        return;
      }
      if (wholeRowGroups && tail != null && !groupCovers(position, len)) {
        int g = tail.groupOf(position, len);
        long size = g < 0 ? 0 : tail.groups()[2 * g + 1] - tail.groups()[2 * g];
        if (size > 0 && size <= MAX_GROUP) {
          group = null; // one row group in memory at a time
          byte[] bytes = new byte[(int) size];
          reader.readFully(tail.groups()[2 * g], bytes, 0, bytes.length);
          group = bytes;
          groupStart = tail.groups()[2 * g];
        }
      }
      if (groupCovers(position, len)) {
        System.arraycopy(group, (int) (position - groupStart), buf, off, len);
      } else if (len < SMALL_READ) {
        // the page indexes and page headers are read through a Thrift stream a byte at a time: one store read each
        // would be one system call (or one request) per byte
        if (!aheadCovers(position, len)) {
          int n = (int) Math.min(READ_AHEAD, reader.length() - position);
          if (ahead == null || ahead.length < n) {
            ahead = new byte[READ_AHEAD];
          }
          reader.readFully(position, ahead, 0, n);
          aheadStart = position;
          aheadLength = n;
        }
        System.arraycopy(ahead, (int) (position - aheadStart), buf, off, len);
      } else {
        reader.readFully(position, buf, off, len);
      }
    }

    private boolean aheadCovers(long position, int len) {
      return ahead != null && position >= aheadStart && position + len <= aheadStart + aheadLength;
    }

    private boolean groupCovers(long position, int len) {
      return group != null && position >= groupStart && position + len <= groupStart + group.length;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) {
      pos = newPos;
    }

    @Override
    public int read() throws IOException {
      if (aheadCovers(pos, 1)) {
        // the page indexes are decoded a byte at a time: the common case, kept short
        return ahead[(int) (pos++ - aheadStart)] & 0xff;
      }
      if (pos >= reader.length()) {
        return -1;
      }
      readAt(pos, one, 0, 1);
      pos++;
      return one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 1 && aheadCovers(pos, 1)) {
        b[off] = ahead[(int) (pos++ - aheadStart)];
        return 1;
      }
      long left = reader.length() - pos;
      if (left <= 0) {
        return len == 0 ? 0 : -1;
      }
      int n = (int) Math.min(len, left);
      readAt(pos, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
      readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(byte[] bytes, int start, int len) throws IOException {
      if (pos + len > reader.length()) {
        throw new EOFException("read of " + len + " bytes at " + pos + " past the end (" + reader.length() + ")");
      }
      readAt(pos, bytes, start, len);
      pos += len;
    }

    @Override
    public int read(ByteBuffer buf) throws IOException {
      int len = buf.remaining();
      long left = reader.length() - pos;
      if (left <= 0) {
        return len == 0 ? 0 : -1;
      }
      int n = (int) Math.min(len, left);
      readInto(buf, n);
      return n;
    }

    @Override
    public void readFully(ByteBuffer buf) throws IOException {
      int len = buf.remaining();
      if (pos + len > reader.length()) {
        throw new EOFException("read of " + len + " bytes at " + pos + " past the end (" + reader.length() + ")");
      }
      readInto(buf, len);
    }

    private void readInto(ByteBuffer buf, int n) throws IOException {
      if (buf.hasArray()) {
        readAt(pos, buf.array(), buf.arrayOffset() + buf.position(), n);
        buf.position(buf.position() + n);
      } else {
        byte[] tmp = new byte[n];
        readAt(pos, tmp, 0, n);
        buf.put(tmp);
      }
      pos += n;
    }

    @Override
    public void close() throws IOException {
      reader.close();
    }
  }
}
