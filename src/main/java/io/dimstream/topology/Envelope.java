package io.dimstream.topology;

import java.nio.ByteBuffer;

/**
 * A decoded record on its way to the SCD2 processor: the original key and value (so a record that turns out too
 * late still reaches the DLQ unchanged) and the event in {@link io.dimstream.codec.EventJson} form, without key;
 * {@code event} is null for a record the decoder rejected.
 */
record Envelope(byte[] sourceKey, byte[] sourceValue, byte[] event) {

  /** {@code [len|-1][source key][len|-1][source value][event]}, lengths as 4-byte big-endian ints. */
  byte[] toBytes() {
    int size = 8 + len(sourceKey) + len(sourceValue) + len(event);
    ByteBuffer b = ByteBuffer.allocate(size);
    put(b, sourceKey);
    put(b, sourceValue);
    if (event != null) {
      b.put(event);
    }
    return b.array();
  }

  static Envelope fromBytes(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte[] key = get(b);
    byte[] value = get(b);
    byte[] event = new byte[b.remaining()];
    b.get(event);
    return new Envelope(key, value, event);
  }

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
