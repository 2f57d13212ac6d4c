package io.dimstream.topology;

import io.dimstream.codec.StateBinary;
import io.dimstream.model.ChangeEvent;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A change record on its way from the decoder to the SCD2 processor: the original key and value, so that a record
 * the engine cannot apply still reaches the DLQ unchanged, and the decoded event in {@link StateBinary} form, so
 * the SCD2 processor does not decode the value a second time. The event is compact (no field names, numbers as
 * varints), so a record grows by about its value's size at most; an event larger than the size policy's
 * {@code maxEventBytes} is left out and decoded again (and rejected as too large) on the other side, which keeps
 * every repartition record within the service's output limit. {@code rejected} marks a record bound for the DLQ
 * and is not written.
 *
 * @param event the decoded event without its key ({@link StateBinary#encodeEvent}), or null when the SCD2 processor
 *     must decode {@code sourceValue} itself (an older release's record, a marker, an oversized event)
 * @param decoded the decoded event itself, when the envelope goes from the decoder to the SCD2 processor in memory
 *     (no repartition hop): it saves decoding {@code event} again; never written, null after {@link #fromBytes}
 */
record Envelope(byte[] sourceKey, byte[] sourceValue, byte[] event, boolean rejected, ChangeEvent decoded) {

  static Envelope accepted(byte[] key, byte[] value) {
    return new Envelope(key, value, null, false, null);
  }

  static Envelope accepted(byte[] key, byte[] value, byte[] event) {
    return new Envelope(key, value, event, false, null);
  }

  /** As {@link #accepted(byte[], byte[], byte[])}, also carrying {@code decoded} for a processor in the same task. */
  static Envelope accepted(byte[] key, byte[] value, byte[] event, ChangeEvent decoded) {
    return new Envelope(key, value, event, false, event == null ? null : decoded);
  }

  static Envelope rejected(byte[] key, byte[] value) {
    return new Envelope(key, value, null, true, null);
  }

  /**
   * {@code [len|-1][source key][len|-1][source value][event]}, lengths as 4-byte big-endian ints; the event, when
   * there is one, runs to the end (releases before it read the key and value and ignore what follows).
   */
  byte[] toBytes() {
    int eventBytes = event == null ? 0 : event.length;
    ByteBuffer b = ByteBuffer.allocate(FRAMING + len(sourceKey) + len(sourceValue) + eventBytes);
    put(b, sourceKey);
    put(b, sourceValue);
    if (event != null) {
      b.put(event);
    }
    return b.array();
  }

  /**
   * Reads {@link #toBytes()}. Bytes after the value that are not a {@link StateBinary} event (a record written by
   * an older release, some of which appended their own form of the decoded event) are ignored, and the event is
   * then decoded again from the value.
   */
  static Envelope fromBytes(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte[] key = get(b);
    byte[] value = get(b);
    byte[] event = null;
    if (b.hasRemaining() && StateBinary.isFormatByte(bytes[b.position()])) {
      event = Arrays.copyOfRange(bytes, b.position(), bytes.length);
    }
    return new Envelope(key, value, event, false, null);
  }

  /** Bytes {@link #toBytes()} adds to the key, value and event. */
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
