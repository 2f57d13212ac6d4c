package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.Version;
import io.dimstream.storage.FaultProxy;
import io.dimstream.storage.FaultProxy.Fault;
import io.dimstream.storage.MotoServer;
import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.TableLocation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A dimension table on moto's S3 server (a process, an S3 implementation independent of s3proxy), reached directly
 * and through an HTTP proxy that does what networks and busy stores do: throttled (503 SlowDown, 429), failed (500),
 * unanswered and late commits,
 * dropped connections and downloads cut short lose nothing and commit nothing twice, and the next commit needs no help.
 */
class MotoS3TableIT {
  static MotoServer moto;
  static FaultProxy proxy;

  @BeforeAll
  static void start() throws Exception {
    moto = MotoServer.start();
    proxy = new FaultProxy("127.0.0.1", moto.port());
  }

  @AfterAll
  static void stop() throws Exception {
    proxy.close();
    moto.close();
  }

  @AfterEach
  void noFaults() {
    proxy.clear();
  }

  private static TableOptions options() {
    return new TableOptions(java.time.Clock.systemUTC(), 20, Duration.ofMillis(5));
  }

  /** The table {@code s3://bucket/customers} through the proxy; requests time out after {@code timeout}. */
  private static ObjectStore viaProxy(String bucket, Duration timeout) {
    return ObjectStores.open(TableLocation.s3(bucket, "customers"),
        MotoServer.settings(proxy.endpoint()).withRequestTimeout(timeout));
  }

  private static List<Long> logVersions(ObjectStore store) throws Exception {
    List<Long> out = new ArrayList<>();
    for (ObjectInfo o : store.list("_delta_log/", null)) {
      String name = o.key().substring("_delta_log/".length());
      if (name.matches("\\d{20}\\.json")) {
        out.add(Long.parseLong(name.substring(0, 20)));
      }
    }
    return out;
  }

  @Test
  void shouldCommitThroughThrottlingAndServerErrorsOnce() throws Exception {
    moto.createBucket("throttled");
    ObjectStore store = viaProxy("throttled", Duration.ofSeconds(5));
    DeltaTable t = DeltaTable.create(store, customers(), Map.of(), options());
    t.newCommit(Operation.MERGE).txns(Map.of("app", 1L)).apply(upserts(version(1, 0, null, "ann")));

    proxy.on("PUT", p -> p.endsWith(".parquet"), 1, Fault.SLOW_DOWN);
    proxy.on("PUT", p -> p.endsWith(".parquet"), 1, Fault.TOO_MANY_REQUESTS);
    proxy.on("PUT", p -> p.endsWith("00000000000000000002.json"), 1, Fault.SLOW_DOWN);
    proxy.on("PUT", p -> p.endsWith("00000000000000000002.json"), 1, Fault.TOO_MANY_REQUESTS);
    proxy.on("PUT", p -> p.endsWith("00000000000000000002.json"), 1, Fault.INTERNAL_ERROR);
    CommitResult r = t.newCommit(Operation.MERGE).txns(Map.of("app", 2L))
        .apply(upserts(version(1, 0, 5L, "ann"), version(1, 5, null, "anna")));
    assertThat(r.version()).isEqualTo(2);
    assertThat(proxy.injected()).as("every fault was met").isEqualTo(5);

    proxy.on("PUT", p -> p.endsWith("00000000000000000003.json"), 1, Fault.FORWARD_THEN_INTERNAL_ERROR);
    assertThat(t.newCommit(Operation.MERGE).txns(Map.of("app", 3L))
        .apply(upserts(version(2, 0, null, "bob"))).version())
        .as("stored, answered 500, read back as ours").isEqualTo(3);

    assertThat(logVersions(store)).containsExactly(0L, 1L, 2L, 3L);
    assertThat(scan(DeltaTable.open(moto.store(moto.endpoint(), "throttled", "customers")).latest()))
        .extracting(v -> (String) v.attributes().get(0)).containsExactly("ann", "anna", "bob");
  }

  @Test
  void shouldResolveCommitsWhoseAnswerWasLostOrLateByReadingThemBack() throws Exception {
    moto.createBucket("unanswered");
    ObjectStore store = viaProxy("unanswered", Duration.ofSeconds(2));
    DeltaTable t = DeltaTable.create(store, customers(), Map.of(), options());

    proxy.on("PUT", p -> p.endsWith("00000000000000000001.json"), 1, Fault.FORWARD_THEN_DROP);
    assertThat(t.newCommit(Operation.MERGE).txns(Map.of("app", 1L))
        .apply(upserts(version(1, 0, null, "ann"))).version())
        .as("the connection dropped after the store took the commit").isEqualTo(1);

    proxy.on("PUT", p -> p.endsWith("00000000000000000002.json"), 1, Fault.FORWARD_THEN_STALL);
    long started = System.nanoTime();
    assertThat(t.newCommit(Operation.MERGE).txns(Map.of("app", 2L))
        .apply(upserts(version(2, 0, null, "bob"))).version())
        .as("the answer came after the client gave up").isEqualTo(2);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(FaultProxy.STALL_MILLIS));

    // another writer takes version 3 while this writer's answer is lost: the read-back finds it is not ours
    DeltaTable other = DeltaTable.open(moto.store(moto.endpoint(), "unanswered", "customers"), options());
    other.newCommit(Operation.MERGE).txns(Map.of("other", 1L)).apply(upserts(version(3, 0, null, "cy")));
    proxy.on("PUT", p -> p.endsWith("00000000000000000003.json"), 1, Fault.FORWARD_THEN_DROP);
    CommitResult mine = t.newCommit(Operation.MERGE).txns(Map.of("app", 3L)).apply(upserts(version(4, 0, null, "dan")));
    assertThat(mine.version()).as("re-planned after the read-back showed another writer's commit").isEqualTo(4);

    assertThat(logVersions(store)).containsExactly(0L, 1L, 2L, 3L, 4L);
    DeltaTable reopened = DeltaTable.open(moto.store(moto.endpoint(), "unanswered", "customers"));
    assertThat(scan(reopened.latest())).extracting(v -> (String) v.attributes().get(0))
        .containsExactly("ann", "bob", "cy", "dan");
    assertThat(reopened.txnVersion("app")).isEqualTo(3);
  }

  @Test
  void shouldStopWithOutcomeUnknownWhenNothingAnswersAndCommitOnceAfterwards() throws Exception {
    moto.createBucket("silent");
    ObjectStore store = ObjectStores.open(TableLocation.s3("silent", "customers"),
        MotoServer.settings(proxy.endpoint()).withRequestTimeout(Duration.ofSeconds(2)).withMaxAttempts(2));
    DeltaTable t = DeltaTable.create(store, customers(), Map.of(), options());
    // the commit fails without a trace of whether it was stored, and so does every read-back
    proxy.on("PUT", p -> p.endsWith("00000000000000000001.json"), 100, Fault.INTERNAL_ERROR);
    proxy.on("GET", p -> p.endsWith("00000000000000000001.json"), 100, Fault.FORWARD_THEN_DROP);
    List<io.dimstream.model.VersionChange> batch = upserts(version(1, 0, null, "ann"));
    assertThatThrownBy(() -> t.newCommit(Operation.MERGE).txns(Map.of("app", 1L)).apply(batch))
        .isInstanceOf(CommitStateUnknownException.class)
        .hasMessageContaining("s3://silent/customers/_delta_log/00000000000000000001.json")
        .hasMessageContaining("unknown whether it was committed");
    List<String> dataFiles = new ArrayList<>();
    for (ObjectInfo o : store.list("is_current=true/", null)) {
      dataFiles.add(o.key());
    }
    assertThat(dataFiles).as("no data file the commit might reference was deleted").isNotEmpty();
    proxy.clear();

    DeltaTable reopened = DeltaTable.open(store, options());
    assertThat(reopened.latest().version()).isZero();
    assertThat(reopened.newCommit(Operation.MERGE).txns(Map.of("app", 1L)).apply(batch).version()).isEqualTo(1);
    assertThat(reopened.newCommit(Operation.MERGE).txns(Map.of("app", 1L)).apply(batch).committed())
        .as("the same batch again is recognised by its txn version").isFalse();
    assertThat(logVersions(store)).containsExactly(0L, 1L);
  }

  @Test
  void shouldReadTheSameRowsThroughDroppedConnectionsAndCutDownloads() throws Exception {
    moto.createBucket("downloads");
    ObjectStore direct = moto.store(moto.endpoint(), "downloads", "customers");
    DeltaTable t = DeltaTable.create(direct, customers(), Map.of("delta.checkpointInterval", "2"), options());
    List<Version> open = new ArrayList<>();
    LongStream.rangeClosed(1, 200).forEach(k -> open.add(version(k, 0, null, "v" + k)));
    t.newCommit(Operation.WRITE).apply(upserts(open.toArray(Version[]::new)));
    List<Version> changed = new ArrayList<>();
    LongStream.rangeClosed(1, 100).forEach(k -> {
      changed.add(version(k, 0, 5L, "v" + k));
      changed.add(version(k, 5, null, "w" + k));
    });
    t.newCommit(Operation.MERGE).apply(upserts(changed.toArray(Version[]::new)));
    List<Version> expected = scan(t.latest());

    proxy.on("GET", p -> p.endsWith(".parquet"), 2, Fault.CUT_BODY);
    proxy.on("GET", p -> p.endsWith(".parquet"), 1, Fault.FORWARD_THEN_DROP);
    proxy.on("GET", p -> p.endsWith(".json"), 1, Fault.SLOW_DOWN);
    proxy.on("GET", p -> p.endsWith(".bin"), 1, Fault.INTERNAL_ERROR);
    proxy.on("GET", p -> p.contains("list-type") || p.endsWith("/downloads"), 1, Fault.TOO_MANY_REQUESTS);
    DeltaTable fresh = DeltaTable.open(viaProxy("downloads", Duration.ofSeconds(2)));
    assertThat(scan(fresh.latest())).isEqualTo(expected).hasSize(300);
    assertThat(proxy.injected()).as("faults met").isGreaterThanOrEqualTo(4);
  }
}
