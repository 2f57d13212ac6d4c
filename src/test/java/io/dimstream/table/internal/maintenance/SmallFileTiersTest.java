package io.dimstream.table.internal.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SmallFileTiersTest {

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(Named.of("one file alone", List.of(500L)), 0L, List.of(500L)),
        Arguments.of(Named.of("two equal files", List.of(100L, 100L)), 0L, List.of(100L, 100L)),
        Arguments.of(Named.of("files of similar size", List.of(120L, 100L, 180L)), 0L, List.of(100L, 120L, 180L)),
        Arguments.of(Named.of("a new file beside a much larger merged one", List.of(400L, 100L)), 0L,
            List.of(100L)),
        Arguments.of(Named.of("small files that together come near the larger one", List.of(400L, 100L, 100L)), 0L,
            List.of(100L, 100L, 400L)),
        Arguments.of(Named.of("a gap stops the tier", List.of(100L, 150L, 1000L, 5000L)), 0L,
            List.of(100L, 150L)),
        Arguments.of(Named.of("files rewritten anyway take small ones up to twice their size",
            List.of(700L, 50L, 3000L)), 400L, List.of(50L, 700L)));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void shouldPickTheSmallestFilesEachAtMostTwiceThoseBelowIt(List<Long> liveRows, long rewritten,
      List<Long> expected) {
    assertThat(SmallFileTiers.pick(liveRows, Long::longValue, rewritten)).containsExactlyElementsOf(expected);
  }
}
