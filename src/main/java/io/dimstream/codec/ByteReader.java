package io.dimstream.codec;

import java.util.Arrays;

/**
 * Reads what a {@link ByteWriter} wrote: single bytes, varints, big-endian fixed-width numbers and length-prefixed
 * byte arrays, from a position in one array. Reading past the end, or a malformed varint, throws
 * {@link IllegalArgumentException} naming what the bytes were meant to be.
 */
public class ByteReader {
  private final byte[] buf;
  private final String what;
  private int at;

  /**
   * @param what what the bytes hold, for error messages ("stored state", "a repartitioned fact")
   */
  public ByteReader(byte[] buf, int at, String what) {
    this.buf = buf;
    this.at = at;
    this.what = what;
  }

  /** The position of the next byte to read. */
  public int position() {
    return at;
  }

  /** Whether every byte has been read. */
  public boolean atEnd() {
    return at >= buf.length;
  }

  public byte read() {
    if (at >= buf.length) {
      throw new IllegalArgumentException(what + " ends early, at byte " + at + " of " + buf.length);
    }
    return buf[at++];
  }

  public long varint() {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = read();
      v |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("malformed varint in " + what + " at byte " + at);
  }

  public long zigzag() {
    long v = varint();
    return (v >>> 1) ^ -(v & 1);
  }

  /** Eight bytes, big-endian. */
  public long fixed64() {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (read() & 0xFF);
    }
    return v;
  }

  /** A varint length, then that many bytes. */
  public byte[] blob() {
    int len = (int) varint();
    if (len < 0 || len > buf.length - at) {
      throw new IllegalArgumentException("a length of " + len + " runs past the end of " + what + " at byte " + at);
    }
    byte[] b = Arrays.copyOfRange(buf, at, at + len);
    at += len;
    return b;
  }
}
