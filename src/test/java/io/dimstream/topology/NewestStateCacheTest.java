package io.dimstream.topology;

import static io.dimstream.topology.PersistentStateTest.ITEMS;
import static io.dimstream.topology.PersistentStateTest.event;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The newest-state cache in front of the RocksDB event store answers exactly what a reverse seek would. */
class NewestStateCacheTest {
  private static final List<BusinessKey> KEYS = List.of(BusinessKey.of(1L), BusinessKey.of(2L), BusinessKey.of(3L),
      BusinessKey.of(4L), BusinessKey.of(5L));

  @TempDir
  Path stateDir;

  /** Two views of one real RocksDB event store: one with a cache of {@code maxKeys}, one that always seeks. */
  private record Stores(RocksDbHistoryStore cached, RocksDbHistoryStore seeking) {
    void assertCoherent() {
      for (BusinessKey k : KEYS) {
        assertThat(cached.current(k)).as("newest state of %s", k).isEqualTo(seeking.current(k));
      }
    }
  }

  private static Stores stores(TopologyRunner h, int maxKeys) {
    KeyValueStore<Bytes, byte[]> events = h.driver().getKeyValueStore(DimensionTopology.EVENT_STORE);
    EventJson json = new EventJson(ITEMS);
    StateBinary state = new StateBinary(ITEMS);
    return new Stores(new RocksDbHistoryStore(events, json, state, 1, maxKeys),
        new RocksDbHistoryStore(events, json, state, 1, 0));
  }

  @Test
  void shouldAnswerLikeTheStoreThroughInOrderLateDuplicateAndDeleteEvents() {
    IncrementalHistory history = new IncrementalHistory(ITEMS);
    String[] colors = {"red", "blue", "green"};
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      Stores s = stores(h, 3); // fewer slots than keys: evictions and misses too
      s.assertCoherent(); // every key absent, and cached as absent
      Random r = new Random(7);
      for (int i = 0; i < 400; i++) {
        BusinessKey k = KEYS.get(r.nextInt(KEYS.size()));
        long seq = 1 + r.nextInt(300); // in order, late and same-sequence events alike
        ChangeEvent e = r.nextInt(10) == 0 ? ChangeEvent.delete(k, Sequence.of(seq))
            : ChangeEvent.upsert(k, Sequence.of(seq), List.of(colors[r.nextInt(colors.length)]));
        history.apply(s.cached(), e);
        s.assertCoherent();
      }
    }
  }

  @Test
  void shouldStayExactWhenPruningDeletesOldEvents() {
    IncrementalHistory history = new IncrementalHistory(ITEMS); // lateness horizon 100
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      Stores s = stores(h, 10);
      for (long seq : new long[] {10, 20, 30, 400, 500}) {
        history.apply(s.cached(), event(1, seq % 20 == 0 ? "blue" : "red", seq));
        history.apply(s.cached(), event(2, "green", seq / 10));
      }
      s.assertCoherent();

      assertThat(s.cached().pruneSlice(history, Integer.MAX_VALUE)).isEqualTo(2); // key 1's events at 10 and 20; 30 is the anchor
      s.assertCoherent();
      history.apply(s.cached(), event(1, "pink", 450)); // late, re-folds from the anchor
      s.assertCoherent();
    }
  }

  @Test
  void shouldFollowTheDeletesThatCloseKeysAtTheEndOfASnapshot() {
    IncrementalHistory history = new IncrementalHistory(ITEMS);
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      Stores s = stores(h, 10);
      for (BusinessKey k : KEYS) {
        history.apply(s.cached(), ChangeEvent.upsert(k, Sequence.of(5), List.of("red")));
      }
      s.assertCoherent();
      // what Scd2Processor does for every open key a snapshot did not carry
      for (BusinessKey k : KEYS.subList(0, 3)) {
        history.apply(s.cached(), ChangeEvent.delete(k, Sequence.of(9)));
      }
      s.assertCoherent();
      assertThat(s.cached().current(KEYS.get(0)).open()).isNull();
      assertThat(s.cached().current(KEYS.get(4)).open()).isNotNull();
    }
  }

  @Test
  void shouldReadTheStoreAgainAfterClose() {
    IncrementalHistory history = new IncrementalHistory(ITEMS);
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      Stores s = stores(h, 10);
      BusinessKey k = KEYS.get(0);
      history.apply(s.cached(), event(1, "red", 10));
      KeyState before = s.cached().current(k);
      // the store changes behind this instance's back, as a restore from the changelog after an aborted
      // transaction or a task moved away and back does
      history.apply(s.seeking(), event(1, "blue", 20));
      assertThat(s.cached().current(k)).isEqualTo(before);

      s.cached().close(); // what the processor does when its task closes; a re-initialised task gets a new store
      assertThat(s.cached().current(k)).isEqualTo(s.seeking().current(k));
      assertThat(s.cached().current(k).lastSequence()).isEqualTo(Sequence.of(20));
    }
  }

  @Test
  void shouldKeepAtMostItsBoundOfKeysAndForgetTheLeastRecentlyUsed() {
    NewestStateCache cache = new NewestStateCache(2);
    KeyState at1 = new KeyState(Sequence.of(1), null);
    cache.read(KEYS.get(0), at1);
    cache.read(KEYS.get(1), null);
    assertThat(cache.lookup(KEYS.get(0))).isEqualTo(at1); // key 1 is now the most recently used
    cache.read(KEYS.get(2), at1);

    assertThat(cache.size()).isEqualTo(2);
    assertThat(cache.contains(KEYS.get(0))).isTrue();
    assertThat(cache.contains(KEYS.get(1))).isFalse();
    assertThat(cache.contains(KEYS.get(2))).isTrue();
  }

  @Test
  void shouldTakeAWriteAsNewestOnlyWhenNoNewerEventIsCached() {
    NewestStateCache cache = new NewestStateCache(10);
    BusinessKey k = KEYS.get(0);
    cache.read(k, new KeyState(Sequence.of(20), null));
    cache.written(k, new StoredEvent(ChangeEvent.delete(k, Sequence.of(10)), null)); // an older event rewritten
    assertThat(cache.lookup(k).lastSequence()).isEqualTo(Sequence.of(20));
    cache.written(k, new StoredEvent(ChangeEvent.delete(k, Sequence.of(30)), null));
    assertThat(cache.lookup(k).lastSequence()).isEqualTo(Sequence.of(30));

    cache.written(KEYS.get(1), new StoredEvent(ChangeEvent.delete(KEYS.get(1), Sequence.of(5)), null));
    assertThat(cache.contains(KEYS.get(1))).as("a write does not make an unknown key known").isFalse();
  }
}
