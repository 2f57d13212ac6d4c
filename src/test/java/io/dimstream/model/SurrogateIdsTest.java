package io.dimstream.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.codec.EventJson;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The version id is the documented hash, so a user can recompute it anywhere (values from Python's hashlib). */
class SurrogateIdsTest {
  private final SurrogateIds longKey = new SurrogateIds(List.of(ColumnType.LONG));

  @Test
  void shouldMatchTheDocumentedDefinitionComputedElsewhere() {
    // python: struct.unpack('>q', sha256(b'[42]' + struct.pack('>q', 10)).digest()[:8])[0]
    assertThat(longKey.of(BusinessKey.of(42L), Sequence.of(10))).isEqualTo(3663591750655392458L);
    assertThat(longKey.of(BusinessKey.of(42L), Sequence.of(11))).isEqualTo(-3136407553467698443L);
    SurrogateIds composite = new SurrogateIds(List.of(ColumnType.STRING, ColumnType.INT));
    // python: sha256(b'["EU",7]' + pack('>q', 20) + pack('>q', 3))
    assertThat(composite.of(BusinessKey.of("EU", 7), Sequence.of(20, 3))).isEqualTo(-83821946533053262L);
  }

  @Test
  void shouldHashTheSameCanonicalKeyBytesAsTheTopologyStores() {
    DimensionSpec spec = DimensionSpec.builder("k")
        .column("region", "string").column("day", "date").column("at", "timestamp").column("amount", "decimal(9,2)")
        .column("flag", "boolean").column("seq", "long")
        .key("region", "day", "at", "amount", "flag").sequence("seq").build();
    SurrogateIds ids = new SurrogateIds(spec.keyColumns().stream().map(c -> c.type()).toList());
    BusinessKey key = BusinessKey.of("nord \"øst\"", LocalDate.of(2020, 2, 29),
        Instant.parse("2026-03-01T08:00:00.5Z"), new BigDecimal("12.50"), true);

    assertThat(ids.keyBytes(key)).isEqualTo(new EventJson(spec).keyBytes(key));
  }

  @Test
  void shouldGiveEqualIdentitiesEqualIdsAndOthersDifferentOnes() {
    long a = longKey.of(BusinessKey.of(1L), Sequence.of(5));

    assertThat(longKey.of(BusinessKey.of(1L), Sequence.of(5))).isEqualTo(a);
    assertThat(longKey.of(new Version(BusinessKey.of(1L), Sequence.of(5), Sequence.of(9), List.of()))).isEqualTo(a);
    assertThat(longKey.of(BusinessKey.of(2L), Sequence.of(5))).isNotEqualTo(a);
    assertThat(longKey.of(BusinessKey.of(1L), Sequence.of(6))).isNotEqualTo(a);
  }
}
