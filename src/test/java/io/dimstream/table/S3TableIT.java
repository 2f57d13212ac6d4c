package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.S3ProxyServer;
import io.dimstream.storage.S3ProxyServer.Faults.Fault;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A dimension table on S3 (s3proxy on 127.0.0.1): the same commits give the same rows as on a local disk; writers
 * racing on one version leave a gap-free log with every commit once; refused, throttled and lost-answer commits and
 * broken downloads lose nothing and commit nothing twice.
 */
class S3TableIT extends ObjectStoreTableContract {
  static S3ProxyServer s3;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyServer.inMemory();
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
  }

  @AfterEach
  void noFaults() {
    s3.faults.clear();
  }

  @Override
  ObjectStore store(String bucket, String prefix) {
    return s3.store(bucket, prefix);
  }

  @Override
  String scheme() {
    return "s3";
  }

  @Test
  void shouldLoseNothingAndCommitNothingTwiceThroughRefusedThrottledAndUnansweredCommits() {
    ObjectStore store = s3.store("faults", "customers");
    DeltaTable t = DeltaTable.create(store, customers(), Map.of(), options());
    t.newCommit(Operation.MERGE).txns(Map.of("app", 1L)).apply(upserts(version(1, 0, null, "ann")));

    s3.faults.onPut(k -> k.endsWith("00000000000000000002.json"), 1_000, Fault.REFUSE);
    assertThatThrownBy(() -> t.newCommit(Operation.MERGE).txns(Map.of("app", 2L))
        .apply(upserts(version(2, 0, null, "bob"))))
        .isInstanceOf(TableException.class).hasMessageContaining("s3://faults/customers/_delta_log/"
            + "00000000000000000002.json");
    s3.faults.clear();
    assertThat(DeltaTable.open(store).latest().version()).as("the refused commit is not in the log").isEqualTo(1);

    s3.faults.onPut(k -> k.endsWith("00000000000000000002.json"), 2, Fault.THROTTLE);
    assertThat(t.newCommit(Operation.MERGE).txns(Map.of("app", 2L))
        .apply(upserts(version(2, 0, null, "bob"))).version()).isEqualTo(2);

    s3.faults.onPut(k -> k.endsWith("00000000000000000003.json"), 1, Fault.STORE_THEN_FAIL);
    CommitResult lost = t.newCommit(Operation.MERGE).txns(Map.of("app", 3L)).apply(upserts(version(3, 0, null, "cy")));
    assertThat(lost.version()).as("stored, answered 500, read back as ours").isEqualTo(3);
    assertThat(t.newCommit(Operation.MERGE).txns(Map.of("app", 3L))
        .apply(upserts(version(3, 0, null, "cy"))).committed())
        .as("the same batch again is recognised by its txn version").isFalse();

    s3.faults.onGet(k -> k.endsWith(".parquet"), 2, Fault.BREAK_DOWNLOAD);
    // a cut connection is noticed when the socket times out: short here, so the test does not wait 30 s
    DeltaTable fresh = DeltaTable.open(io.dimstream.storage.ObjectStores.open(
        io.dimstream.storage.TableLocation.s3("faults", "customers"),
        s3.settings().withRequestTimeout(Duration.ofSeconds(2))));
    assertThat(scan(fresh.latest())).extracting(v -> (String) v.attributes().get(0))
        .containsExactly("ann", "bob", "cy");
    assertThat(fresh.history()).extracting(CommitSummary::version).containsExactly(3L, 2L, 1L, 0L);
  }
}
