package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {
  static Stream<Arguments> readable() {
    return Stream.of(
        Arguments.of("days", "30d", Duration.ofDays(30)),
        Arguments.of("hours", "12h", Duration.ofHours(12)),
        Arguments.of("minutes", "90m", Duration.ofMinutes(90)),
        Arguments.of("seconds", "45s", Duration.ofSeconds(45)),
        Arguments.of("milliseconds", "500ms", Duration.ofMillis(500)),
        Arguments.of("upper case and a space", " 7 D ", Duration.ofDays(7)),
        Arguments.of("zero", "0s", Duration.ZERO),
        Arguments.of("ISO-8601 days", "P7D", Duration.ofDays(7)),
        Arguments.of("ISO-8601 time", "PT36H", Duration.ofHours(36)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("readable")
  void shouldReadBothSyntaxes(String name, String text, Duration expected) {
    assertThat(Durations.parse(text)).contains(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "30", "30 days", "30w", "-3d", "P", "d", "99999999999999999999d"})
  void shouldReadNothingFromAnythingElse(String text) {
    assertThat(Durations.parse(text)).isEmpty();
  }
}
