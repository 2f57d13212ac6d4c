package io.dimstream.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.history.StoredEvent;
import io.dimstream.model.Absent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Stored events keep "absent" apart from null, so a re-fold after a restart still keeps the previous value. */
class EventJsonAbsentTest {
  private static final DimensionSpec SPEC = DimensionSpec.builder("c")
      .column("id", "long").column("name", "string").column("city", "string").column("score", "int")
      .column("seq", "long").key("id").sequence("seq").build();
  private final EventJson json = new EventJson(SPEC);
  private final BusinessKey key = BusinessKey.of(7L);

  @Test
  void shouldRoundTripAbsentApartFromNull() {
    ChangeEvent e = ChangeEvent.upsert(key, Sequence.of(3), Arrays.asList(Absent.VALUE, null, 4));

    ChangeEvent back = json.decodeEvent(key, json.encodeEvent(e));

    assertThat(back).isEqualTo(e);
    assertThat(back.attributes().get(0)).isSameAs(Absent.VALUE);
    assertThat(back.attributes().get(1)).isNull();
  }

  @Test
  void shouldRoundTripAStoredPartialEvent() {
    StoredEvent s = new StoredEvent(ChangeEvent.upsert(key, Sequence.of(3), Arrays.asList("Ann", Absent.VALUE,
        Absent.VALUE)), null);

    assertThat(json.decodeStoredEvent(key, json.encode(s))).isEqualTo(s);
  }

  @Test
  void shouldKeepTheFormOfAFullEventUnchanged() {
    ChangeEvent e = ChangeEvent.upsert(key, Sequence.of(3), Arrays.asList("Ann", null, 4));

    assertThat(new String(json.encodeEvent(e), StandardCharsets.UTF_8)).isEqualTo("[[3],0,[\"Ann\",null,4]]");
  }
}
