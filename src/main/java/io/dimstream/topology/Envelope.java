package io.dimstream.topology;

import java.nio.ByteBuffer;

/**
 * A change record on its way from the decoder to the SCD2 processor: the original key and value, so that a record
 * the engine cannot apply still reaches the DLQ unchanged. The SCD2 processor decodes the value again instead of
 * receiving the decoded event alongside it: carrying both would double every record on the repartition topic and
 * push a record near the size limit over it. {@code rejected} marks a record bound for the DLQ and is not written.
 */
record Envelope(byte[] sourceKey, byte[] sourceValue, boolean rejected) {

  static Envelope accepted(byte[] key, byte[] value) {
    return new Envelope(key, value, false);
  }

  static Envelope rejected(byte[] key, byte[] value) {
    return new Envelope(key, value, true);
  }

  /** {@code [len|-1][source key][len|-1][source value]}, lengths as 4-byte big-endian ints. */
  byte[] toBytes() {
    ByteBuffer b = ByteBuffer.allocate(FRAMING + len(sourceKey) + len(sourceValue));
    put(b, sourceKey);
    put(b, sourceValue);
    return b.array();
  }

  /** Reads {@link #toBytes()}; bytes after the value (the decoded event older releases appended) are ignored. */
  static Envelope fromBytes(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte[] key = get(b);
    byte[] value = get(b);
    return new Envelope(key, value, false);
  }

  /** Bytes {@link #toBytes()} adds to the key and value. */
  static final int FRAMING = 8;

  private static int len(byte[] a) {
    return a == null ? 0 : a.length;
  }

  private static void put(ByteBuffer b, byte[] a) {
    b.putInt(a == null ? -1 : a.length);
    if (a != null) {
      b.put(a);
    }
  }

  private static byte[] get(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0) {
      return null;
    }
    byte[] a = new byte[n];
    b.get(a);
    return a;
  }
}
