package io.dimstream.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import io.dimstream.fixtures.AnyNumber;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/** The hand-written parser of canonical UTC timestamps agrees with the general ISO-8601 parser. */
class TimestampParsingProperties {

  @Test
  void canonicalFormsParseAsTheIsoParserDoes() {
    qt().withExamples(2_000).forAll(AnyNumber.longsBetween(-62_135_596_800L, 253_402_300_799L),
        AnyNumber.intsBetween(0, 999_999_999), integers().between(0, 3)).checkAssert((second, nanos, precision) -> {
          Instant instant = TimestampParsingProperties.instant(second, nanos, precision);
          String text = instant.toString();
          Instant general = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
          assertThat(ColumnValues.parseCanonicalUtc(text)).isEqualTo(general).isEqualTo(instant);
          assertThat(ColumnValues.parseTimestamp(text)).isEqualTo(instant);
        });
  }

  @Test
  void otherFormsFallBackToTheGeneralParser() {
    qt().withExamples(200).forAll(AnyNumber.longsBetween(0, 4_000_000_000L)).checkAssert(second -> {
      String withOffset = OffsetDateTime.ofInstant(Instant.ofEpochSecond(second), java.time.ZoneOffset.ofHours(2))
          .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
      assertThat(ColumnValues.parseCanonicalUtc(withOffset)).isNull();
      assertThat(ColumnValues.parseTimestamp(withOffset)).isEqualTo(Instant.ofEpochSecond(second));
    });
  }

  @Test
  void impossibleDatesAreLeftToTheGeneralParser() {
    assertThat(ColumnValues.parseCanonicalUtc("2026-02-30T00:00:00Z")).isNull();
    assertThat(ColumnValues.parseCanonicalUtc("2026-13-01T00:00:00Z")).isNull();
    assertThat(ColumnValues.parseCanonicalUtc("2026-01-01T24:00:00Z")).isNull();
    assertThat(ColumnValues.parseCanonicalUtc("2026-01-01T00:00:00.Z")).isNull();
    assertThat(ColumnValues.parseCanonicalUtc("2026-01-01T00:00:00.1234567891Z")).isNull();
  }

  /** The instant at {@code second} with its nanos cut to seconds (0), millis (1), micros (2) or kept whole (3). */
  static Instant instant(long second, int nanos, int precision) {
    int keep = switch (precision) {
      case 0 -> 0;
      case 1 -> nanos / 1_000_000 * 1_000_000;
      case 2 -> nanos / 1_000 * 1_000;
      default -> nanos;
    };
    return Instant.ofEpochSecond(second, keep);
  }
}
