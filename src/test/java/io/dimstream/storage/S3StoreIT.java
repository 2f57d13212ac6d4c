package io.dimstream.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.storage.S3ProxyServer.Faults.Fault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link S3Store} against a real S3 server (s3proxy on 127.0.0.1): the store's contract, races and faults. */
class S3StoreIT {
  static S3ProxyServer s3;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyServer.inMemory();
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldListFromAKeyReadRangesAndCreateOnlyIfAbsent() throws Exception {
    ObjectStore store = s3.store("contract", "tables/customers");
    for (int v = 0; v < 3; v++) {
      assertThat(store.putIfAbsent(String.format("_delta_log/%020d.json", v), utf8("commit " + v), 0)).isTrue();
    }
    assertThat(store.putIfAbsent("_delta_log/00000000000000000001.json", utf8("another writer"), 0))
        .as("a taken key is refused and kept").isFalse();
    assertThat(store.read("_delta_log/00000000000000000001.json")).isEqualTo(utf8("commit 1"));
    assertThat(store.list("_delta_log/", "_delta_log/00000000000000000000.json")).extracting(ObjectInfo::key)
        .containsExactly("_delta_log/00000000000000000001.json", "_delta_log/00000000000000000002.json");
    assertThat(s3.store("contract", "tables").list("customers/_delta_log/", null)).hasSize(3);

    byte[] big = new byte[3 * S3Store.READ_BLOCK + 17];
    new Random(7).nextBytes(big);
    Path staged = store.stagingFile("is_current=true/part-0.parquet");
    Files.write(staged, big);
    store.putFile("is_current=true/part-0.parquet", staged);
    assertThat(staged).as("the staged file is gone once published").doesNotExist();
    try (RangeReader r = store.openRanged("is_current=true/part-0.parquet", -1)) {
      assertThat(r.length()).isEqualTo(big.length);
      byte[] tail = new byte[8];
      r.readFully(big.length - 8, tail, 0, 8);
      assertThat(tail).isEqualTo(java.util.Arrays.copyOfRange(big, big.length - 8, big.length));
      byte[] middle = new byte[2 * S3Store.READ_BLOCK];
      r.readFully(100, middle, 0, middle.length);
      assertThat(middle).isEqualTo(java.util.Arrays.copyOfRange(big, 100, 100 + middle.length));
    }
    store.delete("is_current=true/part-0.parquet");
    assertThat(store.head("is_current=true/part-0.parquet")).isEmpty();
    assertThatThrownBy(() -> store.read("is_current=true/part-0.parquet")).isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("s3://contract/tables/customers/is_current=true/part-0.parquet");
  }

  @Test
  void shouldLetExactlyOneOfManyWritersCreateTheSameKey() throws Exception {
    int writers = 8;
    List<ObjectStore> stores = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      stores.add(s3.store("race", "t"));
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      for (int round = 0; round < 5; round++) {
        String key = String.format("_delta_log/%020d.json", round);
        CyclicBarrier start = new CyclicBarrier(writers);
        List<Future<Boolean>> won = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
          ObjectStore store = stores.get(i);
          byte[] content = utf8("writer " + i);
          won.add(pool.submit(() -> {
            start.await();
            return store.putIfAbsent(key, content, 0);
          }));
        }
        int winners = 0;
        int winner = -1;
        for (int i = 0; i < writers; i++) {
          if (won.get(i).get()) {
            winners++;
            winner = i;
          }
        }
        assertThat(winners).as("round %d", round).isEqualTo(1);
        assertThat(stores.get(0).read(key)).isEqualTo(utf8("writer " + winner));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void shouldResolveACreateWhoseAnswerWasLostByReadingItBack() throws Exception {
    ObjectStore store = s3.store("lost", "t");
    s3.faults.onPut(k -> k.endsWith("00000000000000000001.json"), 1, Fault.STORE_THEN_FAIL);
    assertThat(store.putIfAbsent("_delta_log/00000000000000000001.json", utf8("mine"), 0))
        .as("stored, answered 500, then found to be ours").isTrue();

    s3.faults.onPut(k -> k.endsWith("00000000000000000002.json"), 1, Fault.STORE_THEN_FAIL);
    ObjectStore other = s3.store("lost", "t");
    assertThat(other.putIfAbsent("_delta_log/00000000000000000002.json", utf8("theirs"), 0)).isTrue();
    s3.faults.onPut(k -> k.endsWith("00000000000000000002.json"), 1, Fault.STORE_THEN_FAIL);
    assertThat(store.putIfAbsent("_delta_log/00000000000000000002.json", utf8("mine"), 0))
        .as("a 500 on a key another writer holds: read back, not ours").isFalse();
    assertThat(store.read("_delta_log/00000000000000000002.json")).isEqualTo(utf8("theirs"));
  }

  @Test
  void shouldResolveACreateThatTimedOutAfterItWasSentByReadingItBack() throws Exception {
    ObjectStore store = ObjectStores.open(TableLocation.s3("slow", "t"),
        s3.settings().withRequestTimeout(Duration.ofMillis(800)));
    s3.createBucket("slow");
    s3.faults.onPut(k -> k.endsWith("00000000000000000001.json"), 1, Fault.STORE_THEN_STALL);
    long started = System.nanoTime();
    assertThat(store.putIfAbsent("_delta_log/00000000000000000001.json", utf8("mine"), 0)).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the writer gave up waiting, then read back")
        .isLessThan(Duration.ofMillis(S3ProxyServer.Faults.STALL_MILLIS));
    assertThat(store.read("_delta_log/00000000000000000001.json")).isEqualTo(utf8("mine"));
  }

  @Test
  void shouldRetryThrottlingAndABrokenDownloadAndStopAtARefusal() throws Exception {
    ObjectStore store = s3.store("faults", "t");
    s3.faults.onPut(k -> k.endsWith(".json"), 2, Fault.THROTTLE);
    assertThat(store.putIfAbsent("_delta_log/00000000000000000000.json", utf8("first"), 0)).isTrue();
    s3.faults.onPut(k -> k.endsWith(".bin"), 2, Fault.THROTTLE);
    store.put("deletion_vector_x.bin", utf8("dv bytes"));

    byte[] big = new byte[200_000];
    new Random(3).nextBytes(big);
    store.put("part-1.parquet", big);
    s3.faults.onGet(k -> k.endsWith("part-1.parquet"), 1, Fault.BREAK_DOWNLOAD);
    assertThat(store.read("part-1.parquet")).as("a download broken half-way is fetched again").isEqualTo(big);
    s3.faults.onGet(k -> k.endsWith("part-1.parquet"), 2, Fault.THROTTLE);
    try (RangeReader r = store.openRanged("part-1.parquet", big.length)) {
      byte[] b = new byte[10];
      r.readFully(1000, b, 0, 10);
      assertThat(b).isEqualTo(java.util.Arrays.copyOfRange(big, 1000, 1010));
    }

    // Every attempt is refused, not only the first: now and then the JDK's HTTP client loses s3proxy's 403
    // ("Error writing request body to server"), and a create with no answer is rightly read back and tried again.
    s3.faults.onPut(k -> k.endsWith("00000000000000000001.json"), 1_000, Fault.REFUSE);
    assertThatThrownBy(() -> store.putIfAbsent("_delta_log/00000000000000000001.json", utf8("refused"), 0))
        .isNotInstanceOf(PutOutcomeUnknownException.class).hasMessageContaining("403");
    assertThat(store.head("_delta_log/00000000000000000001.json")).as("a refused create stored nothing").isEmpty();
    s3.faults.clear();
  }
}
