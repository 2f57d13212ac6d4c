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
 * (on an object store a ranged GET; the store reads ahead a block, so a footer is one request).
 */
public final class StoreInputFile implements InputFile {
  private final ObjectStore store;
  private final String key;
  private long length;

  /** {@code length}: the object's length when known (from the log or a listing), else -1. */
  public StoreInputFile(ObjectStore store, String key, long length) {
    this.store = store;
    this.key = key;
    this.length = length;
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
    return new RangeStream(store.openRanged(key, length));
  }

  @Override
  public String toString() {
    return store.describe(key);
  }

  private static final class RangeStream extends SeekableInputStream {
    private final RangeReader reader;
    private long pos;
    private final byte[] one = new byte[1];

    RangeStream(RangeReader reader) {
      this.reader = reader;
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
      if (pos >= reader.length()) {
        return -1;
      }
      reader.readFully(pos, one, 0, 1);
      pos++;
      return one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      long left = reader.length() - pos;
      if (left <= 0) {
        return len == 0 ? 0 : -1;
      }
      int n = (int) Math.min(len, left);
      reader.readFully(pos, b, off, n);
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
      reader.readFully(pos, bytes, start, len);
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
        reader.readFully(pos, buf.array(), buf.arrayOffset() + buf.position(), n);
        buf.position(buf.position() + n);
      } else {
        byte[] tmp = new byte[n];
        reader.readFully(pos, tmp, 0, n);
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
