package io.dimstream.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.storage.FaultProxy.Fault;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link AzureStore} against Azurite behind a proxy that injects faults: a commit whose answer is lost or late is
 * resolved by reading it back, throttling and a broken download are retried, a refusal stops at once.
 */
class AzureFaultsIT {
  static AzuriteServer azurite;
  static FaultProxy proxy;

  @BeforeAll
  static void start() throws Exception {
    azurite = AzuriteServer.start();
    proxy = new FaultProxy(FaultProxy.Dialect.AZURE, "127.0.0.1", azurite.port());
    azurite.createContainer("faults");
  }

  @AfterAll
  static void stop() throws Exception {
    proxy.close();
    azurite.close();
  }

  @AfterEach
  void noFaults() {
    proxy.clear();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ObjectStore store(String prefix) {
    return ObjectStores.open(TableLocation.azure("faults", prefix), AzuriteServer.settingsAt(proxy.endpoint()));
  }

  @Test
  void shouldResolveACreateWhoseAnswerWasLostByReadingItBack() throws Exception {
    long before = proxy.injected();
    ObjectStore store = store("lost");
    proxy.on("PUT", k -> k.endsWith("00000000000000000001.json"), 1, Fault.FORWARD_THEN_INTERNAL_ERROR);
    assertThat(store.putIfAbsent("_delta_log/00000000000000000001.json", utf8("mine"), 0))
        .as("stored, answered 500, then found to be ours").isTrue();

    assertThat(store("lost").putIfAbsent("_delta_log/00000000000000000002.json", utf8("theirs"), 0)).isTrue();
    proxy.on("PUT", k -> k.endsWith("00000000000000000002.json"), 1, Fault.FORWARD_THEN_INTERNAL_ERROR);
    assertThat(store.putIfAbsent("_delta_log/00000000000000000002.json", utf8("mine"), 0))
        .as("a 500 on a key another writer holds: read back, not ours").isFalse();
    assertThat(store.read("_delta_log/00000000000000000002.json")).isEqualTo(utf8("theirs"));
    assertThat(proxy.injected() - before).as("faults injected").isEqualTo(2);
  }

  @Test
  void shouldResolveACreateThatTimedOutAfterItWasSentByReadingItBack() throws Exception {
    ObjectStore store = ObjectStores.open(TableLocation.azure("faults", "slow"), AzuriteServer.settingsAt(proxy.endpoint()).withAzure(
        AzuriteServer.settingsAt(proxy.endpoint()).azure().withRequestTimeout(Duration.ofMillis(800))));
    proxy.on("PUT", k -> k.endsWith("00000000000000000001.json"), 1, Fault.FORWARD_THEN_STALL);
    long started = System.nanoTime();
    assertThat(store.putIfAbsent("_delta_log/00000000000000000001.json", utf8("mine"), 0)).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the writer gave up waiting, then read back")
        .isLessThan(Duration.ofMillis(FaultProxy.STALL_MILLIS));
    assertThat(store.read("_delta_log/00000000000000000001.json")).isEqualTo(utf8("mine"));
  }

  @Test
  void shouldRetryThrottlingAndABrokenDownloadAndStopAtARefusal() throws Exception {
    long before = proxy.injected();
    ObjectStore store = store("throttled");
    proxy.on("PUT", k -> k.endsWith(".json"), 2, Fault.SLOW_DOWN);
    assertThat(store.putIfAbsent("_delta_log/00000000000000000000.json", utf8("first"), 0)).isTrue();
    proxy.on("PUT", k -> k.endsWith(".bin"), 2, Fault.SLOW_DOWN);
    store.put("deletion_vector_x.bin", utf8("dv bytes"));
    assertThat(store.read("deletion_vector_x.bin")).isEqualTo(utf8("dv bytes"));

    byte[] big = new byte[200_000];
    new Random(3).nextBytes(big);
    store.put("part-1.parquet", big);
    proxy.on("GET", k -> k.endsWith("part-1.parquet"), 1, Fault.CUT_BODY);
    assertThat(store.read("part-1.parquet")).as("a download broken half-way is fetched again").isEqualTo(big);
    proxy.on("GET", k -> k.endsWith("part-1.parquet"), 2, Fault.SLOW_DOWN);
    try (RangeReader r = store.openRanged("part-1.parquet", big.length)) {
      byte[] b = new byte[10];
      r.readFully(1000, b, 0, 10);
      assertThat(b).isEqualTo(Arrays.copyOfRange(big, 1000, 1010));
    }
    proxy.on("GET", k -> k.endsWith("part-1.parquet"), 1, Fault.CUT_BODY);
    try (RangeReader r = store.openRanged("part-1.parquet", big.length)) {
      byte[] b = new byte[10];
      r.readFully(150_000, b, 0, 10);
      assertThat(b).as("a ranged download broken half-way").isEqualTo(Arrays.copyOfRange(big, 150_000, 150_010));
    }

    proxy.on("PUT", k -> k.endsWith("00000000000000000001.json"), 1, Fault.REFUSE);
    assertThatThrownBy(() -> store.putIfAbsent("_delta_log/00000000000000000001.json", utf8("refused"), 0))
        .isNotInstanceOf(PutOutcomeUnknownException.class).hasMessageContaining("403");
    assertThat(store.head("_delta_log/00000000000000000001.json")).as("a refused create stored nothing").isEmpty();
    assertThat(proxy.injected() - before).as("faults injected").isEqualTo(2 + 2 + 1 + 2 + 1 + 1);
  }
}
