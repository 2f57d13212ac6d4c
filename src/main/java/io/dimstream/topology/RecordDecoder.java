package io.dimstream.topology;

import io.dimstream.history.ChangeEvent;

/**
 * Turns one changes-topic record into a change event or a rejection: the topology's seam to the decoders of
 * {@code io.dimstream.change}. Implementations must not throw for bad input; they reject it.
 */
@FunctionalInterface
public interface RecordDecoder {

  /**
   * @param key             the record key, may be null
   * @param value           the record value, null for a tombstone
   * @param timestampMillis the record timestamp
   */
  Result decode(byte[] key, byte[] value, long timestampMillis);

  /** The closed set of outcomes. */
  sealed interface Result permits Accepted, Rejected {}

  /** A valid event. */
  record Accepted(ChangeEvent event) implements Result {}

  /**
   * An invalid record.
   *
   * @param reason a stable reason code ({@code malformed-json}, {@code missing-key}, ...), sent as the
   *               {@code dimstream.error} header
   * @param detail a human sentence, sent as the {@code dimstream.error.detail} header
   */
  record Rejected(String reason, String detail) implements Result {}
}
