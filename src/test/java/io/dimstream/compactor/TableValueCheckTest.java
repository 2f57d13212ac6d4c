package io.dimstream.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TableValueCheckTest {
  static Stream<Arguments> strings() {
    return Stream.of(
        Arguments.of("plain ASCII", "Oslo", true),
        Arguments.of("a surrogate pair (emoji)", "ok \uD83D\uDE00", true),
        Arguments.of("lone high surrogate", "\uD800", false),
        Arguments.of("lone low surrogate", "a\uDC00b", false),
        Arguments.of("high surrogate at the end", "abc\uD83D", false),
        Arguments.of("pair in the wrong order", "\uDE00\uD83D", false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("strings")
  void shouldAcceptOnlyTextThatIsValidUnicode(String name, String value, boolean ok) {
    VersionChange change = new VersionChange.Upsert(
        new Version(BusinessKey.of(1L), Sequence.of(1), null, List.of(value)), ChangeKind.OPEN);

    Optional<String> problem = TableValueCheck.problem(change);

    assertThat(problem.isEmpty()).isEqualTo(ok);
    problem.ifPresent(p -> assertThat(p).contains("surrogate", "attribute value 1"));
  }
}
