package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Absent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionsById;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.FieldRules;
import io.dimstream.spec.StateLayouts;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The topology restarted with a spec that gained a column (inserted before the others) and widened another: the
 * events it stored and the repartition records written under the former spec are read under the new one, so events
 * that arrive afterwards, in order or late, give the reference fold of all events under the new spec, the old ones
 * carrying what a change decoder gives a field they lack. (A restart is the same store bytes under a new topology;
 * TopologyTestDriver deletes its state directory on close, so the store is carried over by copying it.)
 */
class AddedColumnStateTest {
  /** Attributes: color, price (int). */
  static final DimensionSpec NARROW = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("color", ColumnType.STRING).column("price", ColumnType.INT)
      .column("op", ColumnType.STRING).column("seq", ColumnType.LONG)
      .key("id").sequence("seq").delete(new DeleteRule.ColumnEquals("op", "d")).build();
  static final String LAYOUTS = new StateLayouts(List.of(List.of("color", "price"))).toJson();

  /** Attributes: brand (new, first), color, price (widened to long). */
  static DimensionSpec wide(FieldRules.MissingFields missing) {
    return DimensionSpec.builder("items")
        .column("id", ColumnType.LONG).column("brand", ColumnType.STRING).column("color", ColumnType.STRING)
        .column("price", ColumnType.LONG).column("op", ColumnType.STRING).column("seq", ColumnType.LONG)
        .key("id").sequence("seq").delete(new DeleteRule.ColumnEquals("op", "d"))
        .fields(new FieldRules(missing, FieldRules.DEBEZIUM_UNAVAILABLE, FieldRules.UnknownFields.WARN)).build();
  }

  static String old(long id, String color, int price, long seq) {
    return "{\"id\":" + id + ",\"color\":\"" + color + "\",\"price\":" + price + ",\"seq\":" + seq + "}";
  }

  static String now(long id, String brand, String color, long price, long seq) {
    return "{\"id\":" + id + ",\"brand\":\"" + brand + "\",\"color\":\"" + color + "\",\"price\":" + price
        + ",\"seq\":" + seq + "}";
  }

  static String delete(long id, long seq) {
    return "{\"id\":" + id + ",\"op\":\"d\",\"seq\":" + seq + "}";
  }

  static ChangeEvent upsert(long id, long seq, Object... attrs) {
    return ChangeEvent.upsert(BusinessKey.of(id), Sequence.of(seq), Arrays.asList(attrs));
  }

  @ParameterizedTest
  @EnumSource(FieldRules.MissingFields.class)
  void shouldApplyEventsToTheHistoryStoredBeforeTheSpecGainedAColumn(FieldRules.MissingFields missing) {
    DimensionSpec wide = wide(missing);
    Object lacking = missing == FieldRules.MissingFields.KEEP ? Absent.VALUE : null;
    VersionsById table = new VersionsById();
    List<KeyValue<Bytes, byte[]>> stored;
    try (TopologyRunner before = TopologyRunner.of(NARROW)) {
      before.send(old(1, "red", 3, 10), old(1, "blue", 3, 20), old(2, "red", 5, 10), delete(2, 30),
          old(3, "green", 1, 10));
      before.history().forEach(v -> table.put(widened(v)));
      stored = contents(before);
    }
    List<ChangeEvent> all = new ArrayList<>(List.of(upsert(1, 10, lacking, "red", 3L),
        upsert(1, 20, lacking, "blue", 3L), upsert(2, 10, lacking, "red", 5L),
        ChangeEvent.delete(BusinessKey.of(2L), Sequence.of(30)), upsert(3, 10, lacking, "green", 1L)));

    try (TopologyRunner after = TopologyRunner.builder(wide)
        .streamsConfig(Map.of(DimensionTopology.STATE_LAYOUTS_CONFIG, LAYOUTS)).build()) {
      restore(after, stored);
      // late into key 1's stored history, then newer; key 2 back after its delete; key 3 silent on brand, and late
      after.send(now(1, "acme", "pink", 4_000_000_000L, 15), now(1, "acme", "blue", 3, 40),
          now(2, "acme", "red", 5, 50), old(3, "green", 1, 20), now(3, "zeta", "green", 1, 5));
      all.addAll(List.of(upsert(1, 15, "acme", "pink", 4_000_000_000L), upsert(1, 40, "acme", "blue", 3L),
          upsert(2, 50, "acme", "red", 5L), upsert(3, 20, lacking, "green", 1L), upsert(3, 5, "zeta", "green", 1L)));
      after.emitted().forEach(e -> table.apply(e.change()));

      assertThat(after.rejections()).isEmpty();
      assertThat(table.sorted()).containsExactlyElementsOf(Scd2Fold.fold(wide, all));
    }
  }

  @ParameterizedTest
  @EnumSource(FieldRules.MissingFields.class)
  void shouldApplyARepartitionRecordTheFormerSpecWrote(FieldRules.MissingFields missing) {
    DimensionSpec wide = wide(missing);
    try (TopologyRunner after = TopologyRunner.builder(wide)
        .streamsConfig(Map.of(DimensionTopology.STATE_LAYOUTS_CONFIG, LAYOUTS)).build()) {
      after.send(now(1, "acme", "red", 3, 10));
      // decoded and repartitioned by an instance still on the former spec before it stopped
      byte[] value = old(1, "blue", 3, 20).getBytes(StandardCharsets.UTF_8);
      ChangeEvent decoded = upsert(1, 20, "blue", 3);
      byte[] event = new StateBinary(NARROW).encodeEvent(decoded);
      after.driver().createInputTopic("dimstream-items-" + DimensionTopology.repartitionName(wide) + "-repartition",
              new ByteArraySerializer(), new ByteArraySerializer())
          .pipeInput(new EventJson(NARROW).keyBytes(BusinessKey.of(1L)),
              Envelope.accepted(null, value, event).toBytes());

      assertThat(after.rejections()).isEmpty();
      Object lacking = missing == FieldRules.MissingFields.KEEP ? Absent.VALUE : null;
      assertThat(after.history()).containsExactlyElementsOf(Scd2Fold.fold(wide,
          List.of(upsert(1, 10, "acme", "red", 3L), upsert(1, 20, lacking, "blue", 3L))));
    }
  }

  @ParameterizedTest
  @EnumSource(value = FieldRules.MissingFields.class, names = "NULL")
  void shouldSendRecordsOfALayoutItIsNotToldOfToTheDeadLetterTopicSayingWhy(FieldRules.MissingFields missing) {
    List<KeyValue<Bytes, byte[]>> stored;
    try (TopologyRunner before = TopologyRunner.of(NARROW)) {
      before.send(old(1, "red", 3, 10));
      stored = contents(before);
    }
    try (TopologyRunner after = TopologyRunner.of(wide(missing))) {
      restore(after, stored);
      after.send(now(1, "acme", "red", 3, 20));

      assertThat(after.rejections()).singleElement().satisfies(r -> assertThat(r.detail())
          .contains("holds 2 attributes, but the spec has 3").contains(StateLayouts.PROPERTY));
    }
  }

  /** A version the former spec emitted, as the table reads it after the column was added: null in it. */
  private static Version widened(Version v) {
    List<Object> attrs = new ArrayList<>();
    attrs.add(null);
    attrs.add(v.attributes().get(0));
    attrs.add(v.attributes().get(1) == null ? null : ((Integer) v.attributes().get(1)).longValue());
    return new Version(v.key(), v.validFrom(), v.validTo(), attrs);
  }

  private static List<KeyValue<Bytes, byte[]>> contents(TopologyRunner h) {
    List<KeyValue<Bytes, byte[]>> out = new ArrayList<>();
    KeyValueStore<Bytes, byte[]> store = h.driver().getKeyValueStore(DimensionTopology.EVENT_STORE);
    try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
      it.forEachRemaining(out::add);
    }
    assertThat(out).isNotEmpty();
    return out;
  }

  private static void restore(TopologyRunner h, List<KeyValue<Bytes, byte[]>> stored) {
    KeyValueStore<Bytes, byte[]> store = h.driver().getKeyValueStore(DimensionTopology.EVENT_STORE);
    stored.forEach(kv -> store.put(kv.key, kv.value));
  }
}
