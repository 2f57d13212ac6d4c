package io.dimstream.table.internal.files;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/** Parquet's INT96 timestamps (Spark's default): nanoseconds of the day then the Julian day, both little-endian. */
public final class Int96 {
  /** The parquet-avro option that hands INT96 values over as 12-byte fixed values instead of failing. */
  public static final String READ_AS_FIXED = "parquet.avro.readInt96AsFixed";
  public static final int BYTES = 12;
  private static final long JULIAN_DAY_OF_EPOCH = 2_440_588L;

  private Int96() {}

  /** The instant of a 12-byte INT96 value, in UTC as Spark writes it. */
  public static Instant toInstant(byte[] bytes) {
    if (bytes.length != BYTES) {
      throw new IllegalArgumentException("an INT96 timestamp has 12 bytes, not " + bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    long nanosOfDay = b.getLong();
    long julianDay = Integer.toUnsignedLong(b.getInt());
    long seconds = (julianDay - JULIAN_DAY_OF_EPOCH) * TimeUnit.DAYS.toSeconds(1);
    return Instant.ofEpochSecond(seconds, nanosOfDay);
  }
}
