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
import io.dimstream.types.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class StateBinaryTest {
  private static final DimensionSpec SPEC = DimensionSpec.builder("things")
      .column("region", ColumnType.STRING)
      .column("born", ColumnType.DATE)
      .column("price", ColumnType.decimal(10, 2))
      .column("weight", ColumnType.DOUBLE)
      .column("seen", ColumnType.TIMESTAMP)
      .column("count", ColumnType.LONG)
      .column("rank", ColumnType.INT)
      .column("active", ColumnType.BOOLEAN)
      .column("day", ColumnType.DATE)
      .column("note", ColumnType.STRING)
      .column("lsn", ColumnType.LONG)
      .column("sub", ColumnType.INT)
      .key("region", "born").sequence("lsn", "sub")
      .build();
  private static final BusinessKey KEY = BusinessKey.of("nord \"øst\"", LocalDate.of(2020, 2, 29));
  private final StateBinary binary = new StateBinary(SPEC);
  private final EventJson json = new EventJson(SPEC);

  /** Attributes in {@code SPEC.attributeColumns()} order: price, weight, seen, count, rank, active, day, note. */
  static Stream<Named<List<Object>>> attributes() {
    return Stream.of(
        Named.of("typical", Arrays.asList(new BigDecimal("12.50"), 0.25, Instant.parse("2024-01-01T06:00:00Z"),
            42L, 7, true, LocalDate.of(2024, 1, 31), "plain")),
        Named.of("extremes", Arrays.asList(new BigDecimal("-99999999.99"), Double.NaN,
            Instant.parse("2024-01-01T00:00:00.000001Z"), Long.MIN_VALUE, Integer.MAX_VALUE, false,
            LocalDate.ofEpochDay(Integer.MIN_VALUE), "tab\t, quote \", emoji 😀, nul \u0000")),
        Named.of("nulls", Arrays.asList(null, null, null, null, null, null, null, null)),
        Named.of("negative and empty", Arrays.asList(new BigDecimal("-0.05"), -0.0,
            Instant.parse("1969-12-31T23:59:59.999999Z"), -1L, -300, true, LocalDate.of(1900, 1, 1), "")));
  }

  @Test
  void shouldRoundTripAKeyAndGiveEqualKeysEqualBytes() {
    byte[] bytes = binary.encodeKey(KEY);

    assertThat(binary.decodeKey(bytes)).isEqualTo(KEY);
    assertThat(binary.encodeKey(BusinessKey.of("nord \"øst\"", LocalDate.of(2020, 2, 29)))).isEqualTo(bytes);
    assertThat(binary.encodeKey(BusinessKey.of("nord \"øst\"", LocalDate.of(2020, 3, 1)))).isNotEqualTo(bytes);
  }

  @ParameterizedTest
  @MethodSource("attributes")
  void shouldRoundTripEventsStoredEventsAndKeyStates(List<Object> attrs) {
    ChangeEvent upsert = ChangeEvent.upsert(KEY, Sequence.of(Long.MIN_VALUE, 3), attrs);
    Version open = new Version(KEY, Sequence.of(5, 1), null, attrs);
    Version closed = new Version(KEY, Sequence.of(5, 1), Sequence.of(Long.MAX_VALUE, -1), attrs);

    assertThat(binary.decodeEvent(KEY, binary.encodeEvent(upsert))).isEqualTo(upsert);
    for (StoredEvent e : List.of(new StoredEvent(upsert, open), new StoredEvent(upsert, closed),
        new StoredEvent(upsert, null))) {
      assertThat(binary.decodeStoredEvent(KEY, binary.encode(e))).isEqualTo(e);
    }
    for (KeyState s : List.of(new KeyState(Sequence.of(9, 9), open), new KeyState(Sequence.of(-9, 0), null))) {
      assertThat(binary.decodeKeyState(KEY, binary.encode(s))).isEqualTo(s);
    }
  }

  @ParameterizedTest
  @MethodSource("attributes")
  void shouldReadTheJsonFormsAnOlderReleaseStored(List<Object> attrs) {
    ChangeEvent upsert = ChangeEvent.upsert(KEY, Sequence.of(4, 0), attrs);
    Version open = new Version(KEY, Sequence.of(4, 0), null, attrs);
    StoredEvent stored = new StoredEvent(upsert, open);
    KeyState state = new KeyState(Sequence.of(4, 0), open);

    assertThat(binary.decodeStoredEvent(KEY, json.encode(stored))).isEqualTo(json.decodeStoredEvent(KEY,
        json.encode(stored)));
    assertThat(binary.decodeKeyState(KEY, json.encode(state))).isEqualTo(json.decodeKeyState(KEY, json.encode(state)));
    assertThat(binary.decodeEvent(KEY, json.encodeEvent(upsert))).isEqualTo(json.decodeEvent(KEY,
        json.encodeEvent(upsert)));
  }

  @Test
  void shouldKeepAbsentAttributesApartFromNulls() {
    List<Object> attrs = Arrays.asList(Absent.VALUE, null, null, 1L, Absent.VALUE, null, null, "x");
    ChangeEvent partial = ChangeEvent.upsert(KEY, Sequence.of(1, 0), attrs);

    ChangeEvent back = binary.decodeEvent(KEY, binary.encodeEvent(partial));

    assertThat(back).isEqualTo(partial);
    assertThat(back.partial()).isTrue();
    assertThat(binary.decodeEvent(KEY, json.encodeEvent(partial))).isEqualTo(partial);
  }

  @Test
  void shouldDropTheIncompleteAttributesOfADeleteAsTheJsonFormDoes() {
    ChangeEvent delete = ChangeEvent.delete(KEY, Sequence.of(8, 2));

    assertThat(binary.decodeEvent(KEY, binary.encodeEvent(delete))).isEqualTo(delete);
    assertThat(binary.decodeStoredEvent(KEY, binary.encode(new StoredEvent(delete, null))))
        .isEqualTo(new StoredEvent(delete, null));
  }

  @Test
  void shouldBeSmallerThanTheJsonForm() {
    List<Object> attrs = attributes().findFirst().orElseThrow().getPayload();
    Version open = new Version(KEY, Sequence.of(1_700_000_000_000_000L, 0), null, attrs);
    StoredEvent stored = new StoredEvent(ChangeEvent.upsert(KEY, open.validFrom(), attrs), open);

    assertThat(binary.encode(stored).length).isLessThan(json.encode(stored).length * 2 / 3);
  }

  @Test
  void shouldRefuseTruncatedBytesWithAMessage() {
    byte[] full = binary.encode(new KeyState(Sequence.of(9, 9), new Version(KEY, Sequence.of(5, 1), null,
        attributes().findFirst().orElseThrow().getPayload())));

    assertThatThrownBy(() -> binary.decodeKeyState(KEY, Arrays.copyOf(full, full.length - 3)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stored state");
  }
}
