package io.dimstream.enrich;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.codec.EventJson;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnrichmentStateTest {
  private final DimensionSpec customers = EnrichmentFixtures.customers(EnrichmentFixtures.micros(86_400));
  private final EnrichmentSpec orders = EnrichmentFixtures.orders(customers, true, "0s");
  private final EnrichmentState state = new EnrichmentState(orders);

  @Test
  void shouldKeepAWaitingFactAndAnEmittedOneWithWhatItShowed() {
    Fact order = new Fact(List.of(100L, 7L, Instant.parse("2026-01-01T12:00:00.123456Z"), 20.5));
    Fact noAmount = new Fact(Arrays.asList(101L, 7L, Instant.parse("2026-01-01T12:00:00Z"), null));
    EnrichmentState.StoredFact waiting = new EnrichmentState.StoredFact(order, 0, null);
    EnrichmentState.StoredFact shown = new EnrichmentState.StoredFact(noAmount, 3,
        new EnrichmentState.Shown(true, Sequence.of(1_767_225_600_000_000L), Arrays.asList("Lyon", null)));
    EnrichmentState.StoredFact notFound = new EnrichmentState.StoredFact(order, 1,
        new EnrichmentState.Shown(false, null, Arrays.asList(null, null)));

    for (EnrichmentState.StoredFact f : List.of(waiting, shown, notFound)) {
      assertThat(state.decodeFact(state.encode(f))).isEqualTo(f);
    }
  }

  @Test
  void shouldReadAFactStoredAsJsonByAnEarlierRelease() {
    byte[] json = ("[[100,7,\"2026-01-01T12:00:00Z\",20.5],2,true,[1767225600000000],[\"Lyon\",\"gold\"]]")
        .getBytes(StandardCharsets.UTF_8);

    assertThat(state.decodeFact(json)).isEqualTo(new EnrichmentState.StoredFact(
        new Fact(List.of(100L, 7L, Instant.parse("2026-01-01T12:00:00Z"), 20.5)), 2,
        new EnrichmentState.Shown(true, Sequence.of(1_767_225_600_000_000L), List.of("Lyon", "gold"))));
  }

  @Test
  void shouldKeepAKeysVersionsOpenAndClosed() {
    BusinessKey key = BusinessKey.of(7L);
    EnrichmentState.KeyVersions kv = new EnrichmentState.KeyVersions(EnrichmentFixtures.micros(30), List.of(
        new Version(key, Sequence.of(EnrichmentFixtures.micros(10)), Sequence.of(EnrichmentFixtures.micros(20)),
            Arrays.asList("Ada", null, "gold")),
        new Version(key, Sequence.of(EnrichmentFixtures.micros(20)), null, Arrays.asList("Ada", "Lyon", "gold"))));

    assertThat(state.decodeVersions(key, state.encode(kv))).isEqualTo(kv);
    assertThat(state.decodeVersions(key, state.encode(EnrichmentState.KeyVersions.NONE)))
        .isEqualTo(EnrichmentState.KeyVersions.NONE);
    assertThat(state.decodeVersions(key, null)).isEqualTo(EnrichmentState.KeyVersions.NONE);
  }

  @Test
  void shouldReadVersionsStoredAsJsonByAnEarlierRelease() {
    BusinessKey key = BusinessKey.of(7L);
    EnrichmentState.KeyVersions kv = new EnrichmentState.KeyVersions(EnrichmentFixtures.micros(20), List.of(
        new Version(key, Sequence.of(EnrichmentFixtures.micros(20)), null, Arrays.asList("Ada", "Lyon", "gold"))));
    com.fasterxml.jackson.databind.node.ArrayNode json = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
        .arrayNode().add(kv.newest()).add(new EventJson(customers).versionNode(kv.versions().get(0)));

    assertThat(state.decodeVersions(key, json.toString().getBytes(StandardCharsets.UTF_8))).isEqualTo(kv);
  }

  @Test
  void shouldRefuseBytesOfNeitherForm() {
    assertThatThrownBy(() -> state.decodeFact(new byte[] {9, 1})).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not an enrichment state record");
  }

  @Test
  void shouldCarryAFactThroughItsBinaryFormAndRefuseOtherBytes() {
    FactBinary binary = new FactBinary(orders);
    Fact order = new Fact(Arrays.asList(100L, 7L, Instant.parse("2026-01-01T12:00:00.5Z"), null));

    assertThat(binary.decode(binary.encode(order))).isEqualTo(order);
    assertThatThrownBy(() -> binary.decode("{\"order_id\": 1}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a fact in its binary form");
  }
}
