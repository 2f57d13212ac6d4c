package io.dimstream.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.Absent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.FieldRules;
import io.dimstream.spec.StateLayouts;
import io.dimstream.types.ColumnType;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * State written before the spec gained a column (and widened another) reads under the new spec: each value lands in
 * the column of its name, the added column reads as a change decoder would give a field the event lacks.
 */
class StateBinaryLayoutsTest {
  /** Attributes: color, price (int). */
  static final DimensionSpec NARROW = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("color", ColumnType.STRING).column("price", ColumnType.INT)
      .column("seq", ColumnType.LONG).key("id").sequence("seq").build();
  /** Attributes: brand (added before the others), color, price (widened to long). */
  static final DimensionSpec WIDE = wide(FieldRules.DEFAULT);
  static final DimensionSpec WIDE_KEEP = wide(new FieldRules(FieldRules.MissingFields.KEEP,
      FieldRules.DEBEZIUM_UNAVAILABLE, FieldRules.UnknownFields.WARN));
  static final StateLayouts EARLIER = new StateLayouts(List.of(List.of("color", "price")));
  static final BusinessKey KEY = BusinessKey.of(7L);

  static DimensionSpec wide(FieldRules fields) {
    return DimensionSpec.builder("items")
        .column("id", ColumnType.LONG).column("brand", ColumnType.STRING).column("color", ColumnType.STRING)
        .column("price", ColumnType.LONG).column("seq", ColumnType.LONG).key("id").sequence("seq").fields(fields)
        .build();
  }

  private final StateBinary narrow = new StateBinary(NARROW);
  private final StateBinary wide = new StateBinary(WIDE, EARLIER);

  static ChangeEvent upsert(long seq, Object... attrs) {
    return ChangeEvent.upsert(KEY, Sequence.of(seq), Arrays.asList(attrs));
  }

  static Version version(long from, Long to, Object... attrs) {
    return new Version(KEY, Sequence.of(from), to == null ? null : Sequence.of(to), Arrays.asList(attrs));
  }

  @Test
  void shouldReadEventsAndStoredEventsOfTheEarlierLayoutIntoTheColumnsOfTheirNames() {
    StoredEvent old = new StoredEvent(upsert(10, "red", 3), version(10, null, "red", 3));

    assertThat(wide.decodeEvent(KEY, narrow.encodeEvent(old.event()))).isEqualTo(upsert(10, null, "red", 3L));
    assertThat(wide.decodeStoredEvent(KEY, narrow.encode(old)))
        .isEqualTo(new StoredEvent(upsert(10, null, "red", 3L), version(10, null, null, "red", 3L)));
    StoredEvent closed = new StoredEvent(ChangeEvent.delete(KEY, Sequence.of(20)), null);
    assertThat(wide.decodeStoredEvent(KEY, narrow.encode(closed))).isEqualTo(closed);
  }

  @Test
  void shouldGiveAnOldUpsertAnAbsentAddedColumnUnderMissingFieldsKeep() {
    StateBinary keep = new StateBinary(WIDE_KEEP, EARLIER);
    StoredEvent old = new StoredEvent(upsert(10, "red", null), version(10, 20L, "red", null));

    // the upsert leaves the new column out, as its record did; the version it opened had no value there
    assertThat(keep.decodeStoredEvent(KEY, narrow.encode(old))).isEqualTo(
        new StoredEvent(upsert(10, Absent.VALUE, "red", null), version(10, 20L, null, "red", null)));
  }

  @Test
  void shouldReadRecordsOfTheCurrentLayoutAsBefore() {
    StoredEvent now = new StoredEvent(upsert(30, "acme", "blue", 5_000_000_000L),
        version(30, null, "acme", "blue", 5_000_000_000L));

    assertThat(wide.decodeStoredEvent(KEY, wide.encode(now))).isEqualTo(now);
    assertThat(wide.encode(now)[0]).isEqualTo(StateBinary.FORMAT);
    KeyState state = new KeyState(Sequence.of(30), now.openAfter());
    assertThat(wide.decodeKeyState(KEY, wide.encode(state))).isEqualTo(state);
  }

  @Test
  void shouldReadTheFirstBinaryFormAsItsReleaseWroteIt() {
    // format 1, items of NARROW: seq 10, upsert, 2 attributes ("red", 3), then the version open after it (from 10,
    // open) with the same attributes and no count
    byte[] written = {1, 1, 20, 0, 2, 1, 3, 'r', 'e', 'd', 1, 6, 1, 1, 20, 0, 1, 3, 'r', 'e', 'd', 1, 6};
    StoredEvent expected = new StoredEvent(upsert(10, "red", 3), version(10, null, "red", 3));

    assertThat(narrow.decodeStoredEvent(KEY, written)).isEqualTo(expected);
    assertThat(formatOne(narrow, narrow.encode(expected), expected.openAfter())).isEqualTo(written);
    assertThat(wide.decodeStoredEvent(KEY, written))
        .isEqualTo(new StoredEvent(upsert(10, null, "red", 3L), version(10, null, null, "red", 3L)));
  }

  @Test
  void shouldFindTheLayoutOfAFirstFormVersionThatNoEventDescribes() {
    // a type-1 delete keeps the closed row as its state: the event has no attributes to tell the version's layout
    StoredEvent oldDelete = new StoredEvent(ChangeEvent.delete(KEY, Sequence.of(20)), version(10, 20L, "red", 3));
    StoredEvent newDelete = new StoredEvent(ChangeEvent.delete(KEY, Sequence.of(40)),
        version(30, 40L, "acme", "blue", 5L));
    KeyState oldState = new KeyState(Sequence.of(20), version(10, 20L, "red", 3));
    KeyState newState = new KeyState(Sequence.of(40), version(30, 40L, "acme", "blue", 5L));

    assertThat(wide.decodeStoredEvent(KEY, formatOne(narrow, narrow.encode(oldDelete), oldDelete.openAfter())))
        .isEqualTo(new StoredEvent(oldDelete.event(), version(10, 20L, null, "red", 3L)));
    assertThat(wide.decodeStoredEvent(KEY, formatOne(wide, wide.encode(newDelete), newDelete.openAfter())))
        .isEqualTo(newDelete);
    assertThat(wide.decodeKeyState(KEY, formatOne(narrow, narrow.encode(oldState), oldState.open())))
        .isEqualTo(new KeyState(Sequence.of(20), version(10, 20L, null, "red", 3L)));
    assertThat(wide.decodeKeyState(KEY, formatOne(wide, wide.encode(newState), newState.open())))
        .isEqualTo(newState);
  }

  @Test
  void shouldReadTheJsonFormOfAnOlderReleaseWrittenUnderTheEarlierLayout() {
    EventJson olderRelease = new EventJson(NARROW);
    StoredEvent old = new StoredEvent(upsert(10, "red", 3), version(10, null, "red", 3));
    ChangeEvent partial = upsert(20, Absent.VALUE, 4);
    StateBinary keep = new StateBinary(WIDE_KEEP, EARLIER);

    assertThat(wide.decodeStoredEvent(KEY, olderRelease.encode(old)))
        .isEqualTo(new StoredEvent(upsert(10, null, "red", 3L), version(10, null, null, "red", 3L)));
    assertThat(keep.decodeEvent(KEY, olderRelease.encodeEvent(partial)))
        .isEqualTo(upsert(20, Absent.VALUE, Absent.VALUE, 4L));
    assertThat(wide.decodeKeyState(KEY, olderRelease.encode(new KeyState(Sequence.of(10), old.openAfter()))))
        .isEqualTo(new KeyState(Sequence.of(10), version(10, null, null, "red", 3L)));
  }

  @Test
  void shouldRefuseARecordOfALayoutTheTableDoesNotRecordAndSayWhy() {
    byte[] old = narrow.encode(new StoredEvent(upsert(10, "red", 3), version(10, null, "red", 3)));

    assertThatThrownBy(() -> new StateBinary(WIDE).decodeStoredEvent(KEY, old))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds 2 attributes, but the spec has 3")
        .hasMessageContaining(StateLayouts.PROPERTY)
        .hasMessageContaining("Fix:");
  }

  @Test
  void shouldRefuseLayoutsThatAreNoEarlierFormOfTheSpec() {
    assertThatThrownBy(() -> new StateBinary(WIDE, new StateLayouts(List.of(List.of("colour", "price")))))
        .hasMessageContaining("'colour', which is no attribute column");
    assertThatThrownBy(() -> new StateBinary(WIDE, new StateLayouts(List.of(List.of("price", "brand", "color")))))
        .hasMessageContaining("columns are only ever added");
    assertThatThrownBy(() -> new StateBinary(WIDE,
        new StateLayouts(List.of(List.of("color", "price"), List.of("price", "color")))))
        .hasMessageContaining("cannot be told apart");
  }

  /**
   * The first binary form of a record whose last part is {@code v}: the same bytes with format byte 1 and without
   * the version's attribute count (a one-byte varint just before its attributes).
   */
  static byte[] formatOne(StateBinary writer, byte[] record, Version v) {
    byte[] out;
    if (v == null) {
      out = record.clone();
    } else {
      int attributeBytes = writer.encodeEvent(ChangeEvent.upsert(KEY, Sequence.of(0), v.attributes())).length
          - writer.encodeEvent(ChangeEvent.delete(KEY, Sequence.of(0))).length;
      int countAt = record.length - attributeBytes - 1;
      out = new byte[record.length - 1];
      System.arraycopy(record, 0, out, 0, countAt);
      System.arraycopy(record, countAt + 1, out, countAt, record.length - countAt - 1);
    }
    out[0] = StateBinary.FORMAT_1;
    return out;
  }
}
