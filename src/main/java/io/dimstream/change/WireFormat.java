package io.dimstream.change;

/** The Confluent wire format's header: magic byte 0, then the writer schema's id as 4 big-endian bytes. */
final class WireFormat {
  static final int HEADER = 5;

  private WireFormat() {}

  /** The schema id of a framed value; rejected as {@code bad-magic-byte} when it is not framed. */
  static int schemaId(byte[] value) throws RejectedRecord {
    if (value.length < HEADER) {
      throw ChangeErrors.shortWireHeader(value.length);
    }
    if (value[0] != 0) {
      throw ChangeErrors.badMagicByte(value[0] & 0xff);
    }
    return (value[1] & 0xff) << 24 | (value[2] & 0xff) << 16 | (value[3] & 0xff) << 8 | (value[4] & 0xff);
  }
}
