package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import static io.dimstream.history.HistoryFixtures.TRACKED;
import static io.dimstream.history.HistoryFixtures.del;
import static io.dimstream.history.HistoryFixtures.up;
import static io.dimstream.history.HistoryFixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IncrementalHistoryTest {

  private final InMemoryHistoryStore store = new InMemoryHistoryStore();
  private final IncrementalHistory engine = new IncrementalHistory(TRACKED, 100);
  private final HistoryFixtures.AppliedVersions applied = new HistoryFixtures.AppliedVersions();

  private List<VersionChange> send(ChangeEvent e) {
    ApplyResult r = engine.apply(store, e);
    assertThat(r).isInstanceOf(ApplyResult.Applied.class);
    List<VersionChange> changes = ((ApplyResult.Applied) r).changes();
    applied.apply(changes);
    return changes;
  }

  static Stream<Arguments> contractCases() {
    return Stream.of(
        Arguments.of(Named.of("plain upsert", List.of(up(1, 10, "Oslo", "Ann"))),
            List.of(version(1, 10, null, "Oslo", "Ann"))),
        Arguments.of(Named.of("update with change", List.of(up(1, 10, "Oslo", "Ann"), up(1, 20, "Rome", "Ann"))),
            List.of(version(1, 10, 20L, "Oslo", "Ann"), version(1, 20, null, "Rome", "Ann"))),
        Arguments.of(Named.of("no-change update", List.of(up(1, 10, "Oslo", "Ann"), up(1, 20, "Oslo", "Ann"))),
            List.of(version(1, 10, null, "Oslo", "Ann"))),
        Arguments.of(Named.of("type-1 change in place", List.of(up(1, 10, "Oslo", "Ann"), up(1, 20, "Oslo", "Anna"))),
            List.of(version(1, 10, null, "Oslo", "Anna"))),
        Arguments.of(Named.of("late event spliced into a closed version",
                List.of(up(1, 10, "Oslo", "A"), up(1, 30, "Rome", "A"), up(1, 20, "Bern", "A"))),
            List.of(version(1, 10, 20L, "Oslo", "A"), version(1, 20, 30L, "Bern", "A"), version(1, 30, null, "Rome", "A"))),
        Arguments.of(Named.of("late event makes a later version redundant",
                List.of(up(1, 10, "Oslo", "A"), up(1, 30, "Rome", "A"), up(1, 20, "Rome", "A"))),
            List.of(version(1, 10, 20L, "Oslo", "A"), version(1, 20, null, "Rome", "A"))),
        Arguments.of(Named.of("late delete between two equal upserts re-opens the key",
                List.of(up(1, 10, "Oslo", "A"), up(1, 30, "Oslo", "A"), del(1, 20))),
            List.of(version(1, 10, 20L, "Oslo", "A"), version(1, 30, null, "Oslo", "A"))),
        Arguments.of(Named.of("delete then re-insert",
                List.of(up(1, 10, "Oslo", "A"), del(1, 20), up(1, 30, "Oslo", "A"))),
            List.of(version(1, 10, 20L, "Oslo", "A"), version(1, 30, null, "Oslo", "A"))),
        Arguments.of(Named.of("delete with nothing open does nothing", List.of(del(1, 10))), List.of()),
        Arguments.of(Named.of("same sequence twice: last arrival wins",
                List.of(up(1, 10, "Oslo", "A"), up(1, 10, "Rome", "B"))),
            List.of(version(1, 10, null, "Rome", "B"))),
        Arguments.of(Named.of("duplicate event creates nothing",
                List.of(up(1, 10, "Oslo", "A"), up(1, 20, "Rome", "A"), up(1, 10, "Oslo", "A"))),
            List.of(version(1, 10, 20L, "Oslo", "A"), version(1, 20, null, "Rome", "A"))),
        Arguments.of(Named.of("late type-1 change corrects only the version it falls in",
                List.of(up(1, 10, "Oslo", "A"), up(1, 30, "Rome", "A"), up(1, 20, "Oslo", "B"))),
            List.of(version(1, 10, 30L, "Oslo", "B"), version(1, 30, null, "Rome", "A"))));
  }

  @ParameterizedTest
  @MethodSource("contractCases")
  void shouldEmitRecordsThatDescribeTheReferenceFold(List<ChangeEvent> events, List<Version> expected) {
    events.forEach(this::send);
    assertThat(applied.sorted()).containsExactlyElementsOf(expected);
    assertThat(Scd2Fold.fold(TRACKED, events)).containsExactlyElementsOf(expected);
  }

  @Test
  void shouldEmitExactlyOneCloseAndOneOpenForAChange() {
    send(up(1, 10, "Oslo", "A"));
    List<VersionChange> changes = send(up(1, 20, "Rome", "A"));
    assertThat(changes).containsExactly(
        new VersionChange.Upsert(version(1, 10, 20L, "Oslo", "A"), ChangeKind.CLOSE),
        new VersionChange.Upsert(version(1, 20, null, "Rome", "A"), ChangeKind.OPEN));
  }

  @Test
  void shouldEmitNothingForAReplayedBatch() {
    List<ChangeEvent> batch = List.of(up(1, 10, "Oslo", "A"), up(1, 20, "Rome", "A"), del(1, 30), up(2, 5, "Bern", "B"));
    batch.forEach(this::send);
    List<VersionChange> second = new ArrayList<>();
    batch.forEach(e -> second.addAll(send(e)));
    assertThat(second).isEmpty();
  }

  @Test
  void shouldRetractAVersionMadeRedundantByALateEvent() {
    send(up(1, 10, "Oslo", "A"));
    send(up(1, 30, "Rome", "A"));
    List<VersionChange> changes = send(up(1, 20, "Rome", "A"));
    assertThat(changes).contains(new VersionChange.Retraction(BusinessKey.of(1L), Sequence.of(30)));
  }

  @Test
  void shouldKeepTheInOrderPathAtConstantStoreCost() {
    send(up(1, 0, "c0", "n"));
    long readsBefore = store.reads();
    long writesBefore = store.writes();
    int n = 5_000;
    for (int i = 1; i <= n; i++) {
      send(up(1, i, "c" + (i % 2), "n"));
    }
    assertThat(store.reads() - readsBefore).isEqualTo(n);
    assertThat(store.writes() - writesBefore).isEqualTo(2L * n);
  }

  @Test
  void shouldRejectAnEventOlderThanTheHorizon() {
    send(up(1, 500, "Oslo", "A"));
    assertThat(engine.apply(store, up(1, 399, "Rome", "A"))).isInstanceOf(ApplyResult.TooLate.class);
    assertThat(engine.apply(store, up(1, 400, "Rome", "A"))).isInstanceOf(ApplyResult.Applied.class);
  }

  @Test
  void shouldStillSpliceCorrectlyAfterPruningBeyondTheHorizon() {
    send(up(1, 10, "Oslo", "A"));
    send(up(1, 20, "Rome", "A"));
    send(up(1, 200, "Rome", "B"));
    send(up(1, 250, "Rome", "C"));
    KeyState state = store.current(BusinessKey.of(1L));
    long cutoff = engine.pruneCutoff(state);
    // Keep the newest event below the cutoff as the re-fold anchor, as the topology's punctuator does.
    StoredEvent anchor = store.eventBefore(BusinessKey.of(1L), Sequence.of(cutoff));
    store.removeEventsBefore(BusinessKey.of(1L), anchor.sequence());
    assertThat(store.storedEventCount(BusinessKey.of(1L))).isEqualTo(3);

    send(up(1, 220, "Bern", "B"));
    assertThat(applied.sorted()).containsExactly(
        version(1, 10, 20L, "Oslo", "A"),
        version(1, 20, 220L, "Rome", "B"),
        version(1, 220, 250L, "Bern", "B"),
        version(1, 250, null, "Rome", "C"));
  }

  @Test
  void shouldGiveTheSameHistoryWhenTheStoreIsPrunedAsWhenItIsNot() {
    IncrementalHistory bounded = new IncrementalHistory(TRACKED, 50);
    InMemoryHistoryStore pruned = new InMemoryHistoryStore();
    InMemoryHistoryStore full = new InMemoryHistoryStore();
    HistoryFixtures.AppliedVersions fromPruned = new HistoryFixtures.AppliedVersions();
    HistoryFixtures.AppliedVersions fromFull = new HistoryFixtures.AppliedVersions();
    java.util.Random rnd = new java.util.Random(3);
    long[] newest = new long[4];
    long removed = 0;
    for (int i = 0; i < 4_000; i++) {
      int k = rnd.nextInt(4);
      boolean late = newest[k] > 40 && rnd.nextInt(5) == 0;
      long seq = late ? newest[k] - 1 - rnd.nextInt(40) : (newest[k] += 1 + rnd.nextInt(10));
      ChangeEvent e = rnd.nextInt(10) == 0 ? del(k, seq) : up(k, seq, "c" + rnd.nextInt(3), "n" + rnd.nextInt(2));
      fromPruned.apply(((ApplyResult.Applied) bounded.apply(pruned, e)).changes());
      fromFull.apply(((ApplyResult.Applied) bounded.apply(full, e)).changes());
      if (i % 100 == 99) {
        removed += pruned.prune(bounded);
      }
    }
    assertThat(removed).as("pruning removed events").isGreaterThan(1_000);
    assertThat(fromPruned.sorted()).containsExactlyElementsOf(fromFull.sorted());
  }
}
