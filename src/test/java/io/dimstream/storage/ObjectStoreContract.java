package io.dimstream.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ObjectStore} promises the table layer, run against each store on a real server by a subclass:
 * create only if absent, listing from a key, whole and ranged reads, overwrites, published files, deletes, and
 * writers racing for one key with exactly one winner.
 */
public abstract class ObjectStoreContract {
  /** A fresh, empty table root of the store under test; each call with the same name reaches the same objects. */
  protected abstract ObjectStore store(String table);

  /**
   * Whether the server checks a conditional create atomically against concurrent creates of the same key. Every
   * store dimstream supports does; a test server that does not (moto) is held to what it does guarantee in the
   * race: someone wins, the object is one winner's bytes whole, and a create after the race is refused.
   */
  protected boolean createIsAtomic() {
    return true;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String commit(long v) {
    return String.format("_delta_log/%020d.json", v);
  }

  @Test
  void shouldCreateOnlyIfAbsentAndKeepWhatIsThere() throws Exception {
    ObjectStore store = store("create");
    assertThat(store.putIfAbsent(commit(0), utf8("first"), 1_000L)).isTrue();
    assertThat(store.putIfAbsent(commit(0), utf8("second"), 2_000L)).as("a taken key is refused").isFalse();
    assertThat(store.read(commit(0))).as("and keeps the first writer's bytes").isEqualTo(utf8("first"));
    assertThat(store.head(commit(0))).get().extracting(ObjectInfo::size).isEqualTo(5L);
    assertThat(store.head(commit(1))).isEmpty();
  }

  @Test
  void shouldListAscendingAtAnyDepthFromAKeyAndOnlyUnderItsRoot() throws Exception {
    ObjectStore store = store("list/customers");
    ObjectStore sibling = store("list/customers2");
    for (int v = 12; v >= 0; v--) {
      store.putIfAbsent(commit(v), utf8("commit " + v), 0);
    }
    store.put("_delta_log/_last_checkpoint", utf8("{}"));
    store.put("is_current=true/part-0.parquet", utf8("rows"));
    sibling.put("_delta_log/00000000000000000000.json", utf8("another table"));

    List<String> after = keys(store.list("_delta_log/", commit(9)));
    assertThat(after).containsExactly(commit(10), commit(11), commit(12), "_delta_log/_last_checkpoint");
    assertThat(keys(store.list("_delta_log/", null))).hasSize(14).isSorted();
    assertThat(keys(store.list("", null))).as("at any depth, none of the sibling table's")
        .contains("is_current=true/part-0.parquet").hasSize(15);
    assertThat(store.list("nothing/", null)).isEmpty();
    assertThat(store.list("_delta_log/", "_delta_log/~")).isEmpty();
  }

  @Test
  void shouldReadWholeAndByRangeAcrossBlocksAndAtTheEnd() throws Exception {
    ObjectStore store = store("ranges");
    byte[] big = new byte[3 * (1 << 20) + 17];
    new Random(7).nextBytes(big);
    Path staged = store.stagingFile("is_current=true/part-0.parquet");
    Files.write(staged, big);
    store.putFile("is_current=true/part-0.parquet", staged);
    assertThat(staged).as("the staged file is gone once published").doesNotExist();
    assertThat(store.read("is_current=true/part-0.parquet")).isEqualTo(big);
    try (RangeReader r = store.openRanged("is_current=true/part-0.parquet", -1)) {
      assertThat(r.length()).isEqualTo(big.length);
      byte[] tail = new byte[8];
      r.readFully(big.length - 8, tail, 0, 8);
      assertThat(tail).isEqualTo(Arrays.copyOfRange(big, big.length - 8, big.length));
      byte[] middle = new byte[2 * (1 << 20)];
      r.readFully(100, middle, 0, middle.length);
      assertThat(middle).isEqualTo(Arrays.copyOfRange(big, 100, 100 + middle.length));
      byte[] small = new byte[10];
      r.readFully(5, small, 0, 10);
      assertThat(small).isEqualTo(Arrays.copyOfRange(big, 5, 15));
      assertThatThrownBy(() -> r.readFully(big.length - 4, new byte[8], 0, 8))
          .as("a read past the end").isInstanceOf(java.io.EOFException.class);
    }
    try (RangeReader r = store.openRanged("is_current=true/part-0.parquet", big.length)) {
      byte[] head = new byte[4];
      r.readFully(0, head, 0, 4);
      assertThat(head).isEqualTo(Arrays.copyOf(big, 4));
    }
  }

  @Test
  void shouldOverwriteWholeAndDeleteIdempotently() throws Exception {
    ObjectStore store = store("overwrite");
    store.put("_delta_log/_last_checkpoint", utf8("{\"version\":3}"));
    store.put("_delta_log/_last_checkpoint", utf8("{\"version\":13}"));
    assertThat(store.read("_delta_log/_last_checkpoint")).isEqualTo(utf8("{\"version\":13}"));
    store.delete("_delta_log/_last_checkpoint");
    store.delete("_delta_log/_last_checkpoint");
    assertThat(store.head("_delta_log/_last_checkpoint")).isEmpty();
    assertThatThrownBy(() -> store.read("_delta_log/_last_checkpoint")).isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(store.location() + "/_delta_log/_last_checkpoint");
    assertThatThrownBy(() -> store.openRanged("part-9.parquet", -1).length())
        .isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void shouldLetExactlyOneOfManyWritersCreateTheSameKey() throws Exception {
    int writers = 8;
    List<ObjectStore> stores = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      stores.add(store("race"));
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      for (int round = 0; round < 5; round++) {
        String key = commit(round);
        CyclicBarrier start = new CyclicBarrier(writers);
        List<Future<Boolean>> won = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
          ObjectStore s = stores.get(i);
          byte[] content = utf8("writer " + i);
          won.add(pool.submit(() -> {
            start.await();
            return s.putIfAbsent(key, content, 0);
          }));
        }
        List<Integer> winners = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
          if (won.get(i).get()) {
            winners.add(i);
          }
        }
        byte[] stored = stores.get(0).read(key);
        if (createIsAtomic()) {
          assertThat(winners).as("round %d", round).hasSize(1);
          assertThat(stored).isEqualTo(utf8("writer " + winners.get(0)));
        } else {
          assertThat(winners).as("round %d", round).isNotEmpty();
          assertThat(winners).as("the object is a winner's bytes whole")
              .anySatisfy(w -> assertThat(stored).isEqualTo(utf8("writer " + w)));
        }
        assertThat(stores.get(1).putIfAbsent(key, utf8("late writer"), 0)).as("a create after the race is refused")
            .isFalse();
      }
      assertThat(keys(stores.get(0).list("_delta_log/", null))).containsExactly(commit(0), commit(1), commit(2),
          commit(3), commit(4));
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<String> keys(List<ObjectInfo> objects) {
    return objects.stream().map(ObjectInfo::key).toList();
  }
}
