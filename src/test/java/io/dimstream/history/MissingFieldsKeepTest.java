package io.dimstream.history;

import static io.dimstream.history.HistoryFixtures.TRACKED;
import static io.dimstream.history.HistoryFixtures.del;
import static io.dimstream.history.HistoryFixtures.up;
import static io.dimstream.history.HistoryFixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Absent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code missing_fields: keep}: an absent attribute keeps the value of the version open before the event. */
class MissingFieldsKeepTest {
  private static final Absent ABSENT = Absent.VALUE;

  /** An upsert whose attributes may be {@link Absent#VALUE}; city is tracked, name is type 1. */
  static ChangeEvent partial(long key, long seq, Object city, Object name) {
    return ChangeEvent.upsert(BusinessKey.of(key), Sequence.of(seq), Arrays.asList(city, name));
  }

  static Stream<Arguments> keepCases() {
    return Stream.of(
        Arguments.of(Named.of("absent tracked column keeps its value, type-1 change in place",
                List.of(up(1, 10, "Oslo", "Ann"), partial(1, 20, ABSENT, "Bob"))),
            List.of(version(1, 10, null, "Oslo", "Bob"))),
        Arguments.of(Named.of("absent type-1 column survives a new version",
                List.of(up(1, 10, "Oslo", "Ann"), partial(1, 20, "Rome", ABSENT))),
            List.of(version(1, 10, 20L, "Oslo", "Ann"), version(1, 20, null, "Rome", "Ann"))),
        Arguments.of(Named.of("explicit null still sets null",
                List.of(up(1, 10, "Oslo", "Ann"), partial(1, 20, null, ABSENT))),
            List.of(version(1, 10, 20L, "Oslo", "Ann"), version(1, 20, null, null, "Ann"))),
        Arguments.of(Named.of("nothing to keep after a delete",
                List.of(up(1, 10, "Oslo", "Ann"), del(1, 20), partial(1, 30, ABSENT, "Bob"))),
            List.of(version(1, 10, 20L, "Oslo", "Ann"), version(1, 30, null, null, "Bob"))),
        Arguments.of(Named.of("nothing to keep on a key's first event", List.of(partial(1, 10, ABSENT, "Ann"))),
            List.of(version(1, 10, null, null, "Ann"))),
        Arguments.of(Named.of("all absent is a no-change event",
                List.of(up(1, 10, "Oslo", "Ann"), partial(1, 20, ABSENT, ABSENT))),
            List.of(version(1, 10, null, "Oslo", "Ann"))),
        Arguments.of(Named.of("late event changes what a later partial event keeps",
                List.of(up(1, 10, "Oslo", "Ann"), partial(1, 30, ABSENT, "Bob"), up(1, 20, "Rome", "Ann"))),
            List.of(version(1, 10, 20L, "Oslo", "Ann"), version(1, 20, null, "Rome", "Bob"))),
        Arguments.of(Named.of("late partial event keeps from the version open before it",
                List.of(up(1, 10, "Oslo", "Ann"), up(1, 30, "Rome", "Cy"), partial(1, 20, ABSENT, "Bob"))),
            List.of(version(1, 10, 30L, "Oslo", "Bob"), version(1, 30, null, "Rome", "Cy"))),
        Arguments.of(Named.of("late delete empties what a later partial event keeps",
                List.of(up(1, 10, "Oslo", "Ann"), partial(1, 30, ABSENT, "Bob"), del(1, 20))),
            List.of(version(1, 10, 20L, "Oslo", "Ann"), version(1, 30, null, null, "Bob"))),
        Arguments.of(Named.of("same sequence: the last arrival counts, partial or not",
                List.of(up(1, 10, "Oslo", "Ann"), up(1, 20, "Rome", "Ann"), partial(1, 20, ABSENT, "Bob"))),
            List.of(version(1, 10, null, "Oslo", "Bob"))));
  }

  @ParameterizedTest
  @MethodSource("keepCases")
  void shouldKeepAbsentAttributesInTheReferenceFold(List<ChangeEvent> arrival, List<Version> expected) {
    assertThat(Scd2Fold.fold(TRACKED, arrival)).containsExactlyElementsOf(expected);
  }

  @ParameterizedTest
  @MethodSource("keepCases")
  void shouldKeepAbsentAttributesInTheIncrementalEngine(List<ChangeEvent> arrival, List<Version> expected) {
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    IncrementalHistory engine = new IncrementalHistory(TRACKED, Long.MAX_VALUE);
    HistoryFixtures.AppliedVersions applied = new HistoryFixtures.AppliedVersions();
    for (ChangeEvent e : arrival) {
      applied.apply(((ApplyResult.Applied) engine.apply(store, e)).changes());
    }
    assertThat(applied.sorted()).containsExactlyElementsOf(expected);
  }
}
