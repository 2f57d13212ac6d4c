package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pruning keeps what a late re-fold needs; one key's events form one ordered range of the event store. */
class PersistentStateTest {
  static final DimensionSpec ITEMS = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("color", ColumnType.STRING).column("seq", ColumnType.LONG)
      .key("id").sequence("seq").latenessHorizon(100)
      .build();

  @TempDir
  Path stateDir;

  static String item(long id, String color, long seq) {
    return "{\"id\":" + id + ",\"color\":\"" + color + "\",\"seq\":" + seq + "}";
  }

  static ChangeEvent event(long id, String color, long seq) {
    return ChangeEvent.upsert(BusinessKey.of(id), Sequence.of(seq), List.of(color));
  }

  @Test
  void shouldPruneEventsPastTheHorizonButKeepTheAnchor() {
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      List<ChangeEvent> all = new ArrayList<>();
      long[] seqs = {10, 20, 30, 400, 500};
      String[] colors = {"red", "blue", "blue", "green", "red"};
      for (int i = 0; i < seqs.length; i++) {
        h.send(item(1, colors[i], seqs[i]));
        all.add(event(1, colors[i], seqs[i]));
      }
      assertThat(storedEvents(h)).isEqualTo(5);

      h.driver().advanceWallClockTime(Duration.ofSeconds(61));
      // newest 500, horizon 100: 10, 20 and 30 are past it; 30 stays as the anchor
      assertThat(storedEvents(h)).isEqualTo(3);

      h.send(item(1, "pink", 450), item(1, "green", 401));
      all.add(event(1, "pink", 450));
      all.add(event(1, "green", 401));
      assertThat(h.history()).containsExactlyElementsOf(Scd2Fold.fold(ITEMS, all));
    }
  }

  @Test
  void shouldPruneTheWholeStoreInSlicesThatEachStopAfterTheirBudget() {
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      List<ChangeEvent> all = new ArrayList<>();
      long[] seqs = {10, 20, 30, 400, 500};
      for (long id = 1; id <= 30; id++) {
        for (long seq : seqs) {
          h.send(item(id, "c" + seq, seq));
          all.add(event(id, "c" + seq, seq));
        }
      }
      RocksDbHistoryStore store = new RocksDbHistoryStore(h.driver().getKeyValueStore(DimensionTopology.EVENT_STORE),
          new EventJson(ITEMS), new StateBinary(ITEMS), 1);
      IncrementalHistory history = new IncrementalHistory(ITEMS);

      // a budget of 7 events: each slice takes whole keys until it has seen 7, i.e. two keys of five events
      long pruned = 0;
      for (int slice = 1; slice <= 14; slice++) {
        pruned += store.pruneSlice(history, 7);
        assertThat(pruned).as("after slice %d", slice).isEqualTo(slice * 2L * 2L);
      }
      assertThat(storedEvents(h)).isEqualTo(150 - 56);
      pruned += store.pruneSlice(history, 7); // the last two keys: the store's end
      assertThat(storedEvents(h)).isEqualTo(30 * 3); // per key: the anchor (30), 400 and 500
      assertThat(store.pruneSlice(history, 7)).as("the next pass starts again at the first key").isZero();

      h.send(item(7, "late", 450), item(30, "late", 401));
      all.add(event(7, "late", 450));
      all.add(event(30, "late", 401));
      assertThat(h.history()).containsExactlyElementsOf(Scd2Fold.fold(ITEMS, all));
    }
  }

  @Test
  void shouldStartANewPrunePassAtMostOncePerInterval() {
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      h.send(item(1, "red", 10), item(1, "blue", 20), item(1, "green", 30), item(1, "red", 500));
      h.driver().advanceWallClockTime(Duration.ofSeconds(2));
      assertThat(storedEvents(h)).as("the first pass: 10 and 20 pruned, 30 kept as the anchor").isEqualTo(2);

      h.send(item(1, "blue", 600), item(1, "green", 700));
      h.driver().advanceWallClockTime(Duration.ofSeconds(1));
      h.driver().advanceWallClockTime(Duration.ofSeconds(30));
      assertThat(storedEvents(h)).as("no new pass within a minute of the last").isEqualTo(4);

      h.driver().advanceWallClockTime(Duration.ofSeconds(30));
      assertThat(storedEvents(h)).as("newest 700, horizon 100: 30 pruned, 500 kept as the anchor").isEqualTo(3);
    }
  }

  @Test
  void shouldContinueFromStateAnOlderReleaseStoredAsJson() {
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      List<ChangeEvent> all = new ArrayList<>();
      String[] first = {item(1, "red", 10), item(1, "blue", 20), item(2, "red", 10), item(1, "blue", 30)};
      h.send(first);
      all.addAll(List.of(event(1, "red", 10), event(1, "blue", 20), event(2, "red", 10), event(1, "blue", 30)));
      // what an older release left: every stored event in the JSON form (its current-row store is no longer read)
      rewriteAsJson(h, DimensionTopology.EVENT_STORE, false);

      // in order for key 2; late for key 1 (splits blue [20, ..) at 25), then a newer one
      h.send(item(2, "green", 40), item(1, "pink", 25), item(1, "red", 50));
      all.addAll(List.of(event(2, "green", 40), event(1, "pink", 25), event(1, "red", 50)));

      assertThat(h.history()).containsExactlyElementsOf(Scd2Fold.fold(ITEMS, all));
      KeyValueStore<Bytes, byte[]> events = h.driver().getKeyValueStore(DimensionTopology.EVENT_STORE);
      EventJson json = new EventJson(ITEMS);
      // the newest event, written by this release, is binary; the untouched one at 10 is still JSON
      assertThat(StateBinary.isBinary(events.get(RocksDbHistoryStore.eventKey(json.keyBytes(BusinessKey.of(1L)),
          Sequence.of(50))))).isTrue();
      assertThat(StateBinary.isBinary(events.get(RocksDbHistoryStore.eventKey(json.keyBytes(BusinessKey.of(1L)),
          Sequence.of(10))))).isFalse();
    }
  }

  /** Re-encodes every value of a store in the JSON form of {@link EventJson}, as releases before the binary one. */
  private static void rewriteAsJson(TopologyRunner h, String storeName, boolean keyStates) {
    KeyValueStore<Bytes, byte[]> store = h.driver().getKeyValueStore(storeName);
    EventJson json = new EventJson(ITEMS);
    StateBinary binary = new StateBinary(ITEMS);
    List<org.apache.kafka.streams.KeyValue<Bytes, byte[]>> entries = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
      it.forEachRemaining(entries::add);
    }
    assertThat(entries).isNotEmpty();
    for (var kv : entries) {
      // an event-store key is the canonical key bytes (a JSON array) followed by 8 bytes of sequence
      byte[] k = kv.key.get();
      BusinessKey key = json.key(keyStates ? k : java.util.Arrays.copyOf(k, k.length - 8));
      byte[] old = keyStates ? json.encode(binary.decodeKeyState(key, kv.value))
          : json.encode(binary.decodeStoredEvent(key, kv.value));
      store.put(kv.key, old);
    }
  }

  private static int storedEvents(TopologyRunner h) {
    KeyValueStore<Bytes, byte[]> store = h.driver().getKeyValueStore(DimensionTopology.EVENT_STORE);
    int n = 0;
    try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
      while (it.hasNext()) {
        it.next();
        n++;
      }
    }
    return n;
  }

  @Test
  void shouldKeepOneKeysEventsInOneOrderedRange() {
    EventJson json = new EventJson(ITEMS);
    byte[] k = json.keyBytes(BusinessKey.of(1L));
    Bytes neg = RocksDbHistoryStore.eventKey(k, Sequence.of(-5));
    Bytes zero = RocksDbHistoryStore.eventKey(k, Sequence.of(0));
    Bytes big = RocksDbHistoryStore.eventKey(k, Sequence.of(Long.MAX_VALUE));
    Bytes otherKey = RocksDbHistoryStore.eventKey(json.keyBytes(BusinessKey.of(10L)), Sequence.of(Long.MIN_VALUE));
    assertThat(neg.compareTo(zero)).isNegative();
    assertThat(zero.compareTo(big)).isNegative();
    assertThat(big.compareTo(otherKey) < 0 || neg.compareTo(otherKey) > 0).as("key 10 outside key 1's range").isTrue();
  }
}
