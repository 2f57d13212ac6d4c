package io.dimstream.history;

import static io.dimstream.history.HistoryFixtures.del;
import static io.dimstream.history.HistoryFixtures.up;
import static io.dimstream.history.HistoryFixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Absent;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import io.dimstream.spec.HistoryMode;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The type-1 contract, case by case: one row per key, its latest state by sequence. */
class Scd1ContractTest {
  static final boolean[] NONE_TRACKED = {false, false};
  static final HistoryMode HARD = new HistoryMode(HistoryMode.Kind.SCD1, false);
  static final HistoryMode SOFT = new HistoryMode(HistoryMode.Kind.SCD1, true);

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("first upsert inserts the row", List.of(up(1, 10, "Oslo", "A")),
            List.of(version(1, 10, null, "Oslo", "A")), List.of(version(1, 10, null, "Oslo", "A"))),
        Arguments.of("newer upsert overwrites every column in place",
            List.of(up(1, 10, "Oslo", "A"), up(1, 20, "Rome", "B")),
            List.of(version(1, 10, null, "Rome", "B")), List.of(version(1, 10, null, "Rome", "B"))),
        Arguments.of("older upsert arriving late changes nothing",
            List.of(up(1, 10, "Oslo", "A"), up(1, 30, "Rome", "B"), up(1, 20, "Pisa", "C")),
            List.of(version(1, 10, null, "Rome", "B")), List.of(version(1, 10, null, "Rome", "B"))),
        Arguments.of("an upsert older than the first one moves the row's valid_from",
            List.of(up(1, 10, "Oslo", "A"), up(1, 5, "Pisa", "C")),
            List.of(version(1, 5, null, "Oslo", "A")), List.of(version(1, 5, null, "Oslo", "A"))),
        Arguments.of("duplicate", List.of(up(1, 10, "Oslo", "A"), up(1, 10, "Oslo", "A")),
            List.of(version(1, 10, null, "Oslo", "A")), List.of(version(1, 10, null, "Oslo", "A"))),
        Arguments.of("same sequence: the later arrival counts",
            List.of(up(1, 10, "Oslo", "A"), up(1, 10, "Rome", "B")),
            List.of(version(1, 10, null, "Rome", "B")), List.of(version(1, 10, null, "Rome", "B"))),
        Arguments.of("delete removes the row, or closes it with soft_delete",
            List.of(up(1, 10, "Oslo", "A"), del(1, 20)),
            List.of(), List.of(version(1, 10, 20L, "Oslo", "A"))),
        Arguments.of("a second delete keeps the first delete's sequence",
            List.of(up(1, 10, "Oslo", "A"), del(1, 20), del(1, 30)),
            List.of(), List.of(version(1, 10, 20L, "Oslo", "A"))),
        Arguments.of("upsert after a delete brings the row back",
            List.of(up(1, 10, "Oslo", "A"), del(1, 20), up(1, 30, "Rome", "B")),
            List.of(version(1, 10, null, "Rome", "B")), List.of(version(1, 10, null, "Rome", "B"))),
        Arguments.of("a partial upsert after a delete brings the row back with nulls where it is silent",
            List.of(up(1, 10, "Oslo", "A"), del(1, 20), MissingFieldsKeepTest.partial(1, 30, Absent.VALUE, "B")),
            List.of(version(1, 10, null, null, "B")), List.of(version(1, 10, null, null, "B"))),
        Arguments.of("late delete older than the newest upsert changes nothing",
            List.of(up(1, 10, "Oslo", "A"), up(1, 30, "Rome", "B"), del(1, 20)),
            List.of(version(1, 10, null, "Rome", "B")), List.of(version(1, 10, null, "Rome", "B"))),
        Arguments.of("late upsert before a delete gives the deleted row its values",
            List.of(up(1, 10, "Oslo", "A"), del(1, 30), up(1, 20, "Rome", "B")),
            List.of(), List.of(version(1, 10, 30L, "Rome", "B"))),
        Arguments.of("delete of a key never seen does nothing", List.of(del(2, 10)), List.of(), List.of()),
        Arguments.of("keys are independent",
            List.of(up(1, 10, "Oslo", "A"), up(2, 11, "Rome", "B"), del(1, 12)),
            List.of(version(2, 11, null, "Rome", "B")),
            List.of(version(1, 10, 12L, "Oslo", "A"), version(2, 11, null, "Rome", "B"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void shouldKeepTheLatestRowPerKey(String name, List<ChangeEvent> arrival, List<Version> hard, List<Version> soft) {
    assertThat(rows(HARD, arrival)).as("hard delete").containsExactlyElementsOf(hard);
    assertThat(rows(SOFT, arrival)).as("soft_delete: true").containsExactlyElementsOf(soft);
    assertThat(Scd2Fold.fold(NONE_TRACKED, HARD, arrival)).as("reference fold, hard").containsExactlyElementsOf(hard);
    assertThat(Scd2Fold.fold(NONE_TRACKED, SOFT, arrival)).as("reference fold, soft").containsExactlyElementsOf(soft);
  }

  /** What a consumer of the versions topic holds after the engine applied {@code arrival} one event at a time. */
  static List<Version> rows(HistoryMode mode, List<ChangeEvent> arrival) {
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    IncrementalHistory engine = new IncrementalHistory(NONE_TRACKED, Long.MAX_VALUE, mode);
    HistoryFixtures.AppliedVersions applied = new HistoryFixtures.AppliedVersions();
    for (ChangeEvent e : arrival) {
      applied.apply(((ApplyResult.Applied) engine.apply(store, e)).changes());
    }
    return applied.sorted();
  }
}
