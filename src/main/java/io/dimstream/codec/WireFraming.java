package io.dimstream.codec;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputFormat;

/**
 * The Confluent wire format around the Avro records dimstream writes: byte 0, the id of the schema registered under
 * {@code <topic>-value}, then the record in Avro binary, so that consumers with a registry-aware deserializer read the
 * topic. Version records ({@code versions_format: avro} with a {@code schema_registry}), enriched records
 * ({@code output.format: avro}) and what {@code produce} sends are all framed here. Null values (retractions) stay
 * null.
 */
public final class WireFraming {
  private static final int HEADER = 5;

  private WireFraming() {}

  /** Whether the spec's version records are framed. */
  public static boolean versionsFramed(DimensionSpec spec) {
    return spec.outputFormat() == OutputFormat.AVRO && spec.schemaRegistry() != null;
  }

  /** {@code value} behind the header of schema {@code id}; null stays null. */
  public static byte[] frame(int id, byte[] value) {
    if (value == null) {
      return null;
    }
    byte[] out = new byte[HEADER + value.length];
    out[1] = (byte) (id >>> 24);
    out[2] = (byte) (id >>> 16);
    out[3] = (byte) (id >>> 8);
    out[4] = (byte) id;
    System.arraycopy(value, 0, out, HEADER, value.length);
    return out;
  }

  /**
   * The record behind the header; null stays null. The schema id is not looked up: as with plain Avro version
   * records, the record is read with the spec's own schema.
   *
   * @throws IllegalArgumentException when {@code value} does not start with the header
   */
  public static byte[] unframe(byte[] value) {
    if (value == null) {
      return null;
    }
    if (value.length < HEADER || value[0] != 0) {
      throw new IllegalArgumentException("not a version record in the Confluent wire format (magic byte 0 and a"
          + " schema id): " + (value.length == 0 ? "an empty value" : "the first byte is " + (value[0] & 0xff)));
    }
    return java.util.Arrays.copyOfRange(value, HEADER, value.length);
  }
}
