package io.dimstream.codec;

import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventJsonTest {
  private static final DimensionSpec SPEC = DimensionSpec.builder("things")
      .column("region", ColumnType.STRING)
      .column("born", ColumnType.DATE)
      .column("price", ColumnType.decimal(10, 2))
      .column("weight", ColumnType.DOUBLE)
      .column("seen", ColumnType.TIMESTAMP)
      .column("lsn", ColumnType.LONG)
      .column("sub", ColumnType.INT)
      .key("region", "born").sequence("lsn", "sub")
      .build();
  private final EventJson json = new EventJson(SPEC);
  private final BusinessKey key = BusinessKey.of("nord \"øst\"", LocalDate.of(2020, 2, 29));

  @Test
  void shouldRenderCanonicalKeyBytesAsJsonArray() {
    assertThat(new String(json.keyBytes(key), StandardCharsets.UTF_8)).isEqualTo("[\"nord \\\"øst\\\"\",\"2020-02-29\"]");
    assertThat(json.key(json.keyBytes(key))).isEqualTo(key);
    assertThat(json.keyBytes(BusinessKey.of("nord \"øst\"", LocalDate.of(2020, 2, 29)))).isEqualTo(json.keyBytes(key));
  }

  @Test
  void shouldRoundTripStoredEventsAndKeyStates() {
    List<Object> attrs = Arrays.asList(new BigDecimal("-0.05"), Double.NaN, Instant.parse("2024-01-01T00:00:00.000001Z"));
    ChangeEvent upsert = ChangeEvent.upsert(key, Sequence.of(Long.MIN_VALUE, 3), attrs);
    ChangeEvent delete = ChangeEvent.delete(key, Sequence.of(Long.MAX_VALUE, -1));
    Version open = new Version(key, Sequence.of(5, 1), null, attrs);
    Version closed = new Version(key, Sequence.of(5, 1), Sequence.of(6, 0), Arrays.asList(null, 1.5, null));

    for (StoredEvent e : List.of(new StoredEvent(upsert, open), new StoredEvent(upsert, closed))) {
      assertThat(json.decodeStoredEvent(key, json.encode(e))).isEqualTo(e);
    }
    assertThat(json.decodeStoredEvent(key, json.encode(new StoredEvent(delete, null))))
        .isEqualTo(new StoredEvent(delete, null));
    assertThat(json.decodeEvent(key, json.encodeEvent(upsert))).isEqualTo(upsert);
    assertThat(json.decodeKeyState(key, json.encode(new KeyState(Sequence.of(9, 9), open))))
        .isEqualTo(new KeyState(Sequence.of(9, 9), open));
    assertThat(json.decodeKeyState(key, json.encode(new KeyState(Sequence.of(9, 9), null))))
        .isEqualTo(new KeyState(Sequence.of(9, 9), null));
  }
}
