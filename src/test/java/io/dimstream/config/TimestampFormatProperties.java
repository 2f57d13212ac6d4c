package io.dimstream.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** The hand-written timestamp formatter writes exactly what {@link Instant#toString()} writes, for any instant. */
class TimestampFormatProperties {

  @Property(tries = 5_000)
  void shouldFormatAsInstantToStringDoes(
      @ForAll @LongRange(min = -9_223_372_036_854L, max = 9_223_372_036_854L) long second,
      @ForAll @IntRange(min = 0, max = 999_999_999) int nanos, @ForAll @IntRange(min = 0, max = 3) int precision) {
    Instant instant = TimestampParsingProperties.instant(second, nanos, precision);
    assertThat(ColumnValues.formatTimestamp(instant)).isEqualTo(instant.toString());
  }

  @Property(tries = 2_000)
  void shouldFormatEveryDayOfTheFastRangeAsInstantToStringDoes(
      @ForAll @LongRange(min = 0, max = 2_932_896) long day, @ForAll @IntRange(min = 0, max = 86_399) int second) {
    Instant instant = Instant.ofEpochSecond(day * 86_400 + second);
    assertThat(ColumnValues.formatTimestamp(instant)).isEqualTo(instant.toString());
  }

  @Example
  void shouldFormatTheEdgesAsInstantToStringDoes() {
    for (Instant i : new Instant[] {Instant.EPOCH, Instant.ofEpochSecond(-1), Instant.ofEpochSecond(0, 1),
        Instant.parse("2000-02-29T23:59:59.999999999Z"), Instant.parse("2024-01-01T06:00:00.500Z"),
        Instant.parse("2100-03-01T00:00:00.000001Z"), Instant.parse("9999-12-31T23:59:59.999Z"),
        Instant.parse("+10000-01-01T00:00:00Z"), ColumnValues.MIN_TIMESTAMP, ColumnValues.MAX_TIMESTAMP}) {
      assertThat(ColumnValues.formatTimestamp(i)).isEqualTo(i.toString());
    }
  }
}
