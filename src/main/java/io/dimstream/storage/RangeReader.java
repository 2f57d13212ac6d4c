package io.dimstream.storage;

import java.io.Closeable;
import java.io.IOException;

/** Random reads of one object, by byte range (a ranged GET on an object store, a positional read of a file). */
public interface RangeReader extends Closeable {
  /** The object's length in bytes. */
  long length() throws IOException;

  /**
   * Reads exactly {@code len} bytes starting at {@code position} into {@code buf[off..off+len)}.
   *
   * @throws java.io.EOFException when the object ends before {@code position + len}
   */
  void readFully(long position, byte[] buf, int off, int len) throws IOException;
}
