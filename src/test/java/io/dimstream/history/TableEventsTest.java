package io.dimstream.history;

import static io.dimstream.history.HistoryFixtures.TRACKED;
import static io.dimstream.history.HistoryFixtures.del;
import static io.dimstream.history.HistoryFixtures.up;
import static io.dimstream.history.HistoryFixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A table taken over by the engine ({@link TableEvents}), case by case: the rows of a backfill become stored events,
 * and what arrives afterwards changes the table as it would have on the events that made it (the properties are in
 * {@link TakeoverProperties}).
 */
class TableEventsTest {
  private static final boolean[] NONE_TRACKED = Scd1ContractTest.NONE_TRACKED;
  private static final HistoryMode SOFT = Scd1ContractTest.SOFT;
  private static final HistoryMode HARD = Scd1ContractTest.HARD;

  /** The table a backfill of {@code events} writes, taken over by an engine with {@code horizon}. */
  private static TakeoverProperties.TakenOverTable backfilled(HistoryMode mode, long horizon, ChangeEvent... events) {
    boolean[] tracked = mode.isScd1() ? NONE_TRACKED : TRACKED;
    return new TakeoverProperties.TakenOverTable(Scd2Fold.fold(tracked, mode, List.of(events)), tracked, mode,
        horizon);
  }

  private static List<VersionChange> changes(ApplyResult r) {
    assertThat(r).isInstanceOf(ApplyResult.Applied.class);
    return ((ApplyResult.Applied) r).changes();
  }

  private static List<ChangeEvent> concat(List<ChangeEvent> a, ChangeEvent... b) {
    List<ChangeEvent> out = new ArrayList<>(a);
    out.addAll(List.of(b));
    return out;
  }

  @Test
  void shouldStandForAClosedRowByTheUpsertThatOpenedItAndTheDeleteThatClosedIt() {
    Version closed = version(1, 10, 20L, "Oslo", "A");
    assertThat(TableEvents.opening(closed))
        .isEqualTo(new StoredEvent(up(1, 10, "Oslo", "A"), version(1, 10, null, "Oslo", "A")));
    assertThat(TableEvents.closing(closed, HistoryMode.SCD2)).contains(new StoredEvent(del(1, 20), null));
    // scd1 keeps the deleted key's row, closed, as the fold's state: a later upsert re-opens it
    assertThat(TableEvents.closing(closed, SOFT)).contains(new StoredEvent(del(1, 20), closed));
    Version open = version(1, 30, null, "Rome", "B");
    assertThat(TableEvents.opening(open)).isEqualTo(new StoredEvent(up(1, 30, "Rome", "B"), open));
    assertThat(TableEvents.closing(open, HistoryMode.SCD2)).isEqualTo(Optional.empty());
  }

  // --- shouldNeverHoldTwoCurrentRowsOrOverlaps

  @Test
  void shouldCloseBackfilledCurrentVersionOnUpdate() {
    var t = backfilled(HistoryMode.SCD2, Long.MAX_VALUE, up(1, 10, "Oslo", "A"), up(1, 20, "Rome", "A"));

    assertThat(changes(t.send(up(1, 30, "Bern", "A")))).containsExactly(
        new VersionChange.Upsert(version(1, 20, 30L, "Rome", "A"), ChangeKind.CLOSE),
        new VersionChange.Upsert(version(1, 30, null, "Bern", "A"), ChangeKind.OPEN));
    assertThat(t.rows()).containsExactly(version(1, 10, 20L, "Oslo", "A"), version(1, 20, 30L, "Rome", "A"),
        version(1, 30, null, "Bern", "A"));
  }

  @Test
  void shouldCloseBackfilledCurrentVersionOnDeleteAndOpenANewOneOnReinsert() {
    var t = backfilled(HistoryMode.SCD2, Long.MAX_VALUE, up(1, 10, "Oslo", "A"));
    t.send(del(1, 20));
    t.takeOver(); // state lost between the delete and the re-insert
    t.send(up(1, 30, "Oslo", "A"));

    assertThat(t.rows()).containsExactly(version(1, 10, 20L, "Oslo", "A"), version(1, 30, null, "Oslo", "A"));
  }

  // --- shouldGiveTheFoldOfTheWholeStreamAcrossHandOvers

  @Test
  void shouldSpliceLateEventIntoBackfilledHistory() {
    List<ChangeEvent> backfill = List.of(up(1, 10, "Oslo", "A"), del(1, 20), up(1, 30, "Rome", "A"));
    var t = backfilled(HistoryMode.SCD2, Long.MAX_VALUE, backfill.toArray(ChangeEvent[]::new));
    assertThat(t.rows()).containsExactly(version(1, 10, 20L, "Oslo", "A"), version(1, 30, null, "Rome", "A"));

    t.send(up(1, 15, "Bern", "A"));
    assertThat(t.rows()).containsExactly(version(1, 10, 15L, "Oslo", "A"), version(1, 15, 20L, "Bern", "A"),
        version(1, 30, null, "Rome", "A"));
    // after the delete, a late upsert with the values of the version at 30 makes that version redundant
    assertThat(changes(t.send(up(1, 25, "Rome", "A")))).containsExactly(
        new VersionChange.Upsert(version(1, 25, null, "Rome", "A"), ChangeKind.OPEN),
        new VersionChange.Retraction(BusinessKey.of(1L), Sequence.of(30)));

    List<Version> expected = List.of(version(1, 10, 15L, "Oslo", "A"), version(1, 15, 20L, "Bern", "A"),
        version(1, 25, null, "Rome", "A"));
    assertThat(t.rows()).containsExactlyElementsOf(expected);
    assertThat(Scd2Fold.fold(TRACKED, concat(backfill, up(1, 15, "Bern", "A"), up(1, 25, "Rome", "A"))))
        .containsExactlyElementsOf(expected);
  }

  @Test
  void shouldGiveSoftDeletedScd1RowTheValuesOfALateUpsert() {
    var t = backfilled(SOFT, Long.MAX_VALUE, up(1, 10, "Oslo", "A"), del(1, 30));
    assertThat(t.rows()).containsExactly(version(1, 10, 30L, "Oslo", "A"));

    t.send(up(1, 20, "Rome", "B"));
    assertThat(t.rows()).containsExactly(version(1, 10, 30L, "Rome", "B"));
    t.send(del(1, 40)); // a second delete keeps the first one's sequence
    assertThat(t.rows()).containsExactly(version(1, 10, 30L, "Rome", "B"));
  }

  @Test
  void shouldReopenSoftDeletedScd1RowOnUpsert() {
    var t = backfilled(SOFT, Long.MAX_VALUE, up(1, 10, "Oslo", "A"), up(1, 20, "Rome", "B"), del(1, 30));
    assertThat(t.rows()).containsExactly(version(1, 10, 30L, "Rome", "B"));

    assertThat(changes(t.send(up(1, 40, "Bern", "A"))))
        .containsExactly(new VersionChange.Upsert(version(1, 10, null, "Bern", "A"), ChangeKind.CORRECT));
    assertThat(t.rows()).containsExactly(version(1, 10, null, "Bern", "A"));
  }

  @Test
  void shouldOverwriteBackfilledScd1RowInPlaceWithoutSoftDelete() {
    var t = backfilled(HARD, Long.MAX_VALUE, up(1, 10, "Oslo", "A"), up(1, 20, "Rome", "B"));
    t.send(up(1, 30, "Bern", "B"));
    assertThat(t.rows()).containsExactly(version(1, 10, null, "Bern", "B"));
    t.send(del(1, 40));
    assertThat(t.rows()).isEmpty();
  }

  /** Documented limitation: an event that changed nothing visible in a row is not in the table's events. */
  @Test
  void shouldFoldALateEventAsIfTheBackfillsNoChangeEventHadNotBeenSent() {
    List<ChangeEvent> backfill = List.of(up(1, 10, "Oslo", "A"), up(1, 20, "Oslo", "A"));
    var t = backfilled(HistoryMode.SCD2, Long.MAX_VALUE, backfill.toArray(ChangeEvent[]::new));
    assertThat(t.rows()).containsExactly(version(1, 10, null, "Oslo", "A"));

    t.send(del(1, 15));
    assertThat(t.rows()).containsExactly(version(1, 10, 15L, "Oslo", "A"));
    // had the engine seen the upsert at 20, it would have opened a version there
    assertThat(Scd2Fold.fold(TRACKED, concat(backfill, del(1, 15))))
        .containsExactly(version(1, 10, 15L, "Oslo", "A"), version(1, 20, null, "Oslo", "A"));
  }

  /**
   * Limitation of scd1 without soft_delete: a delete removes the key's row, so a key that comes back after a takeover
   * is a new key, its row starting at its return rather than at its first upsert ever.
   */
  @Test
  void shouldBringBackAKeyRemovedByAHardDeleteAsANewRow() {
    List<ChangeEvent> backfill = List.of(up(1, 10, "Oslo", "A"), del(1, 20));
    var t = backfilled(HARD, Long.MAX_VALUE, backfill.toArray(ChangeEvent[]::new));
    assertThat(t.rows()).isEmpty();

    t.send(up(1, 30, "Rome", "B"));
    assertThat(t.rows()).containsExactly(version(1, 30, null, "Rome", "B"));
    assertThat(Scd2Fold.fold(NONE_TRACKED, HARD, concat(backfill, up(1, 30, "Rome", "B"))))
        .containsExactly(version(1, 10, null, "Rome", "B"));
  }

  // --- shouldChangeNothingWhenTheOverlapIsSentAgain

  @Test
  void shouldChangeNothingForDuplicateOfBackfilledEvent() {
    List<ChangeEvent> backfill = List.of(up(1, 10, "Oslo", "A"), up(1, 20, "Rome", "A"), del(1, 30),
        up(2, 10, "Bern", "B"));
    var t = backfilled(HistoryMode.SCD2, Long.MAX_VALUE, backfill.toArray(ChangeEvent[]::new));
    List<Version> table = t.rows();

    for (int i = backfill.size() - 1; i >= 0; i--) {
      assertThat(changes(t.send(backfill.get(i)))).as("%s sent again", backfill.get(i)).isEmpty();
    }
    assertThat(t.rows()).isEqualTo(table);
  }

  @Test
  void shouldChangeNothingForDuplicateOfBackfilledScd1Events() {
    List<ChangeEvent> backfill = List.of(up(1, 10, "Oslo", "A"), del(1, 30), up(2, 10, "Bern", "B"));
    var t = backfilled(SOFT, Long.MAX_VALUE, backfill.toArray(ChangeEvent[]::new));
    for (ChangeEvent e : List.of(del(1, 30), up(2, 10, "Bern", "B"), up(1, 10, "Oslo", "A"))) {
      assertThat(changes(t.send(e))).as("%s sent again", e).isEmpty();
    }
    assertThat(t.rows()).containsExactly(version(1, 10, 30L, "Oslo", "A"), version(2, 10, null, "Bern", "B"));
  }

  // --- shouldRefuseEventsBeyondTheHorizonAsASingleStreamWould

  @Test
  void shouldRefuseEventBeyondTheHorizonOfTheBackfilledNewest() {
    var t = backfilled(HistoryMode.SCD2, 5, up(1, 10, "Oslo", "A"), up(1, 20, "Rome", "A"));

    // the newest backfilled event is at 20: the cutoff is 15
    assertThat(t.send(up(1, 14, "Bern", "A"))).isEqualTo(new ApplyResult.TooLate(20, 5));
    assertThat(t.rows()).containsExactly(version(1, 10, 20L, "Oslo", "A"), version(1, 20, null, "Rome", "A"));
    t.send(up(1, 15, "Bern", "A"));
    assertThat(t.rows()).containsExactly(version(1, 10, 15L, "Oslo", "A"), version(1, 15, 20L, "Bern", "A"),
        version(1, 20, null, "Rome", "A"));
  }

  @Test
  void shouldCountTheHorizonFromTheDeleteThatClosedABackfilledRow() {
    var t = backfilled(SOFT, 5, up(1, 10, "Oslo", "A"), del(1, 20));
    assertThat(t.send(up(1, 14, "Rome", "B"))).isEqualTo(new ApplyResult.TooLate(20, 5));
    t.send(up(1, 16, "Rome", "B"));
    assertThat(t.rows()).containsExactly(version(1, 10, 20L, "Rome", "B"));
  }
}
