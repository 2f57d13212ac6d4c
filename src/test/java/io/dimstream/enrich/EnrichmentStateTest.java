package io.dimstream.enrich;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.codec.ByteWriter;
import io.dimstream.codec.ColumnBinary;
import io.dimstream.codec.EventJson;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
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

  /** customers before: attributes name, city, score (int). */
  private static final DimensionSpec NARROW = DimensionSpec.builder("customers")
      .column("customer_id", "long").column("name", "string").column("city", "string").column("score", "int")
      .column("updated_at", "timestamp").key("customer_id").sequence("updated_at").build();
  /** customers after: segment added first, score widened to long. */
  private static final DimensionSpec WIDE = DimensionSpec.builder("customers")
      .column("customer_id", "long").column("segment", "string").column("name", "string").column("city", "string")
      .column("score", "long").column("updated_at", "timestamp").key("customer_id").sequence("updated_at").build();
  private static final StateLayouts EVOLVED = new StateLayouts(List.of(List.of("name", "city", "score")));

  @Test
  void shouldReadVersionsKeptBeforeTheDimensionGainedAColumnAndWidenedOne() {
    BusinessKey key = BusinessKey.of(7L);
    EnrichmentState.KeyVersions kept = new EnrichmentState.KeyVersions(EnrichmentFixtures.micros(20), List.of(
        new Version(key, Sequence.of(EnrichmentFixtures.micros(10)), Sequence.of(EnrichmentFixtures.micros(20)),
            Arrays.asList("Ada", null, 3)),
        new Version(key, Sequence.of(EnrichmentFixtures.micros(20)), null, Arrays.asList("Ada", "Lyon", 5))));
    byte[] before = new EnrichmentState(ordersOf(NARROW)).encode(kept);
    EnrichmentState after = new EnrichmentState(ordersOf(WIDE), EVOLVED);

    assertThat(after.decodeVersions(key, before).versions()).extracting(Version::attributes)
        .containsExactly(Arrays.asList(null, "Ada", null, 3L), Arrays.asList(null, "Ada", "Lyon", 5L));
    // and what it writes under the new spec reads back
    EnrichmentState.KeyVersions now = after.decodeVersions(key, before);
    assertThat(after.decodeVersions(key, after.encode(now))).isEqualTo(now);
  }

  @Test
  void shouldReadVersionsKeptInTheFirstBinaryFormUnderAnEarlierLayout() {
    // the first binary form: no attribute count; as the release before it wrote a key's two versions under NARROW
    ByteWriter out = new ByteWriter(64);
    out.write(EnrichmentState.VERSIONS_FORMAT_1);
    out.zigzag(EnrichmentFixtures.micros(20));
    out.varint(2);
    ColumnBinary.writeSequence(out, Sequence.of(EnrichmentFixtures.micros(10)));
    out.write(1);
    ColumnBinary.writeSequence(out, Sequence.of(EnrichmentFixtures.micros(20)));
    firstFormValues(out, "Ada", null, 3);
    ColumnBinary.writeSequence(out, Sequence.of(EnrichmentFixtures.micros(20)));
    out.write(0);
    firstFormValues(out, "Ada", "Lyon", 5);
    BusinessKey key = BusinessKey.of(7L);

    assertThat(new EnrichmentState(ordersOf(WIDE), EVOLVED).decodeVersions(key, out.bytes()).versions())
        .extracting(Version::validTo, Version::attributes)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(Sequence.of(EnrichmentFixtures.micros(20)),
                Arrays.asList(null, "Ada", null, 3L)),
            org.assertj.core.groups.Tuple.tuple(null, Arrays.asList(null, "Ada", "Lyon", 5L)));
    assertThat(new EnrichmentState(ordersOf(NARROW)).decodeVersions(key, out.bytes()).versions())
        .extracting(Version::attributes)
        .containsExactly(Arrays.asList("Ada", null, 3), Arrays.asList("Ada", "Lyon", 5));
  }

  @Test
  void shouldSayWhichLayoutsItKnowsWhenVersionsWereKeptUnderAnother() {
    byte[] before = new EnrichmentState(ordersOf(NARROW)).encode(new EnrichmentState.KeyVersions(1, List.of(
        new Version(BusinessKey.of(7L), Sequence.of(1), null, Arrays.asList("Ada", "Lyon", 5)))));

    assertThatThrownBy(() -> new EnrichmentState(ordersOf(WIDE)).decodeVersions(BusinessKey.of(7L), before))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds 3 attributes, but the spec has 4").hasMessageContaining(StateLayouts.PROPERTY);
  }

  private static void firstFormValues(ByteWriter out, String name, String city, int score) {
    for (Object v : Arrays.asList(name, city)) {
      if (v == null) {
        out.write(0);
      } else {
        out.write(1);
        ColumnBinary.write(out, v, io.dimstream.types.ColumnType.Kind.STRING);
      }
    }
    out.write(1);
    ColumnBinary.write(out, score, io.dimstream.types.ColumnType.Kind.INT);
  }

  private static EnrichmentSpec ordersOf(DimensionSpec customers) {
    try {
      return EnrichmentSpecLoader.parse(new com.fasterxml.jackson.databind.ObjectMapper(
          new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree("""
          name: orders_enriched
          dimension: customers.yaml
          facts:
            topic: orders
            columns: {order_id: long, customer_id: long, ordered_at: timestamp}
            key: [order_id]
            time: ordered_at
          join: {customer_id: customer_id}
          attributes: [city, score]
          """), null, customers);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
