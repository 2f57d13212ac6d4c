package io.dimstream.codec;

import java.util.Arrays;

/**
 * A growing byte buffer: single bytes, byte arrays, varints and big-endian fixed-width numbers (as
 * {@link java.io.DataInputStream} reads them). What {@link StateBinary} encodes into, and what a backfill writes its
 * encoded events into.
 */
public final class ByteWriter {
  private byte[] buf;
  private int n;

  public ByteWriter(int capacity) {
    buf = new byte[capacity];
  }

  public void write(int b) {
    ensure(1);
    buf[n++] = (byte) b;
  }

  public void write(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buf, n, b.length);
    n += b.length;
  }

  public void varint(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[n++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[n++] = (byte) v;
  }

  public void zigzag(long v) {
    varint((v << 1) ^ (v >> 63));
  }

  /** Four bytes, big-endian. */
  public void fixed32(int v) {
    ensure(4);
    for (int i = 3; i >= 0; i--) {
      buf[n++] = (byte) (v >>> (8 * i));
    }
  }

  /** Eight bytes, big-endian. */
  public void fixed64(long v) {
    ensure(8);
    for (int i = 7; i >= 0; i--) {
      buf[n++] = (byte) (v >>> (8 * i));
    }
  }

  /** A varint length, then the bytes. */
  public void blob(byte[] b) {
    varint(b.length);
    write(b);
  }

  /** The bytes written (the buffer itself when it is exactly full). */
  public byte[] bytes() {
    return n == buf.length ? buf : Arrays.copyOf(buf, n);
  }

  private void ensure(int more) {
    if (n + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
    }
  }
}
