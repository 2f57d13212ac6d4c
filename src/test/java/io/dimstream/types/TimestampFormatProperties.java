package io.dimstream.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import io.dimstream.fixtures.AnyNumber;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The hand-written timestamp formatter writes exactly what {@link Instant#toString()} writes, for any instant. */
class TimestampFormatProperties {

  @Test
  void shouldFormatAsInstantToStringDoes() {
    qt().withExamples(5_000).forAll(AnyNumber.longsBetween(-9_223_372_036_854L, 9_223_372_036_854L),
        AnyNumber.intsBetween(0, 999_999_999), integers().between(0, 3)).checkAssert((second, nanos, precision) -> {
          Instant instant = TimestampParsingProperties.instant(second, nanos, precision);
          assertThat(ColumnValues.formatTimestamp(instant)).isEqualTo(instant.toString());
        });
  }

  @Test
  void shouldFormatEveryDayOfTheFastRangeAsInstantToStringDoes() {
    qt().withExamples(2_000).forAll(AnyNumber.longsBetween(0, 2_932_896), AnyNumber.intsBetween(0, 86_399))
        .checkAssert((day, second) -> {
          Instant instant = Instant.ofEpochSecond(day * 86_400 + second);
          assertThat(ColumnValues.formatTimestamp(instant)).isEqualTo(instant.toString());
        });
  }

  @Test
  void shouldFormatTheEdgesAsInstantToStringDoes() {
    for (Instant i : new Instant[] {Instant.EPOCH, Instant.ofEpochSecond(-1), Instant.ofEpochSecond(0, 1),
        Instant.parse("2000-02-29T23:59:59.999999999Z"), Instant.parse("2024-01-01T06:00:00.500Z"),
        Instant.parse("2100-03-01T00:00:00.000001Z"), Instant.parse("9999-12-31T23:59:59.999Z"),
        Instant.parse("+10000-01-01T00:00:00Z"), ColumnValues.MIN_TIMESTAMP, ColumnValues.MAX_TIMESTAMP}) {
      assertThat(ColumnValues.formatTimestamp(i)).isEqualTo(i.toString());
    }
  }
}
