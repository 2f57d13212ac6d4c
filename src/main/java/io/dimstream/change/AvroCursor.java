package io.dimstream.change;

import java.nio.charset.StandardCharsets;

/**
 * Reads Avro binary primitives from one byte array, bounds-checked: a length is checked against the bytes left
 * before anything is allocated, so garbage input is rejected cheaply instead of exhausting memory.
 */
final class AvroCursor {

  /** Invalid or short input; cheap (no stack trace). */
  static class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message, null, false, false);
    }
  }

  /** A string whose bytes are not well-formed UTF-8, at byte {@code offset} of the value. */
  static final class BadText extends Malformed {
    private static final long serialVersionUID = 1L;
    private final int offset;

    BadText(int offset, String message) {
      super(message);
      this.offset = offset;
    }

    int offset() {
      return offset;
    }
  }

  private final byte[] buf;
  private int pos;

  AvroCursor(byte[] buf) {
    this(buf, 0);
  }

  /** Reads from byte {@code start} on: the bytes before it are a framing header (the Confluent wire format's). */
  AvroCursor(byte[] buf, int start) {
    this.buf = buf;
    this.pos = start;
  }

  int position() {
    return pos;
  }

  boolean atEnd() {
    return pos == buf.length;
  }

  long readLong() throws Malformed {
    return zigzag(readVarint(10));
  }

  int readInt() throws Malformed {
    long raw = readVarint(5);
    if ((raw >>> 32) != 0) {
      throw new Malformed("an int does not fit in 32 bits");
    }
    return (int) zigzag(raw);
  }

  boolean readBoolean() throws Malformed {
    byte b = next();
    if (b == 0) {
      return false;
    }
    if (b == 1) {
      return true;
    }
    throw new Malformed("a boolean byte is " + b + ", not 0 or 1");
  }

  float readFloat() throws Malformed {
    require(4);
    int bits = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16 | (buf[pos + 3] & 0xff) << 24;
    pos += 4;
    return Float.intBitsToFloat(bits);
  }

  double readDouble() throws Malformed {
    require(8);
    long bits = 0;
    for (int i = 7; i >= 0; i--) {
      bits = bits << 8 | (buf[pos + i] & 0xff);
    }
    pos += 8;
    return Double.longBitsToDouble(bits);
  }

  String readString() throws Malformed {
    int len = readLength();
    StrictText.Problem bad = StrictText.utf8(buf, pos, len);
    if (bad != null) {
      throw new BadText(bad.offset(), bad.what());
    }
    String s = new String(buf, pos, len, StandardCharsets.UTF_8);
    pos += len;
    return s;
  }

  byte[] readBytes() throws Malformed {
    return readFixed(readLength());
  }

  byte[] readFixed(int size) throws Malformed {
    require(size);
    byte[] out = new byte[size];
    System.arraycopy(buf, pos, out, 0, size);
    pos += size;
    return out;
  }

  void skip(int n) throws Malformed {
    require(n);
    pos += n;
  }

  /** A string or bytes length: not negative and within the bytes left. */
  int readLength() throws Malformed {
    long len = readLong();
    if (len < 0) {
      throw new Malformed("a length is negative (" + len + ")");
    }
    if (len > buf.length - pos) {
      throw new Malformed("a length of " + len + " bytes exceeds the " + (buf.length - pos) + " bytes left");
    }
    return (int) len;
  }

  private long readVarint(int maxBytes) throws Malformed {
    long result = 0;
    for (int i = 0; i < maxBytes; i++) {
      byte b = next();
      result |= (long) (b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    throw new Malformed("a variable-length number runs over " + maxBytes + " bytes");
  }

  private static long zigzag(long n) {
    return (n >>> 1) ^ -(n & 1);
  }

  private byte next() throws Malformed {
    if (pos >= buf.length) {
      throw new Malformed("the value ends too early");
    }
    return buf[pos++];
  }

  private void require(int n) throws Malformed {
    if (n > buf.length - pos) {
      throw new Malformed("the value ends too early (" + n + " bytes needed, " + (buf.length - pos) + " left)");
    }
  }
}
