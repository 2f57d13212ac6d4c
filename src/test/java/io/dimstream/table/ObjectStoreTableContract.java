package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dimension table on an object store: the same commits give the same rows as on a local disk through checkpoints,
 * time travel, optimize and vacuum; writers racing on one version leave a gap-free log with every commit once. Each
 * store's IT runs it against its real server.
 */
abstract class ObjectStoreTableContract {
  @TempDir
  Path dir;

  /** The store of {@code prefix} in {@code bucket} (a container on Azure), created if it does not exist. */
  abstract ObjectStore store(String bucket, String prefix);

  /** The scheme of the store's table URIs: s3, az. */
  abstract String scheme();

  /** What else the store's table must show once the series is committed (e.g. another URI of the same table). */
  void alsoCheck(DeltaTable reopened, DeltaTable local) {}

  static TableOptions options() {
    return new TableOptions(java.time.Clock.systemUTC(), 20, Duration.ofMillis(5));
  }

  /** Opens keys 1..20, closes 1..10 at hour 5 with new versions, and retracts key 20's version. */
  private static void commitSeries(DeltaTable t) {
    List<Version> open = new ArrayList<>();
    LongStream.rangeClosed(1, 20).forEach(k -> open.add(version(k, 0, null, "v" + k)));
    t.newCommit(Operation.WRITE).txns(Map.of("app", 1L)).apply(upserts(open.toArray(Version[]::new)));
    List<Version> changed = new ArrayList<>();
    LongStream.rangeClosed(1, 10).forEach(k -> {
      changed.add(version(k, 0, 5L, "v" + k));
      changed.add(version(k, 5, null, "w" + k));
    });
    t.newCommit(Operation.MERGE).txns(Map.of("app", 2L)).apply(upserts(changed.toArray(Version[]::new)));
    t.newCommit(Operation.MERGE).txns(Map.of("app", 3L)).apply(List.of(Versions.retract(20, 0)));
    for (int i = 0; i < 3; i++) {
      t.newCommit(Operation.MERGE).txns(Map.of("app", 4L + i)).apply(upserts(version(100 + i, 1, null, "x" + i)));
    }
  }

  @Test
  void shouldHoldTheSameRowsAsOnALocalDiskThroughCheckpointsTimeTravelOptimizeAndVacuum() {
    ObjectStore store = store("dims", "warehouse/customers");
    DeltaTable remote = DeltaTable.create(store, customers(), Map.of("delta.checkpointInterval", "3"), options());
    DeltaTable local = DeltaTable.create(dir.resolve("customers"), customers(), Map.of("delta.checkpointInterval",
        "3"), options());
    commitSeries(remote);
    commitSeries(local);

    DeltaTable reopened = DeltaTable.open(store("dims", "warehouse/customers"));
    assertThat(reopened.location().toString()).isEqualTo(scheme() + "://dims/warehouse/customers");
    assertThat(reopened.latest().version()).isEqualTo(local.latest().version());
    assertThat(scan(reopened.latest())).isEqualTo(scan(local.latest())).hasSize(32);
    assertThat(scan(reopened.snapshotAt(2))).isEqualTo(scan(local.snapshotAt(2)));
    assertThat(reopened.txnVersion("app")).isEqualTo(6);
    assertThat(objects(store, "_delta_log/")).as("a checkpoint every 3 commits, in the store")
        .contains("_delta_log/00000000000000000006.checkpoint.parquet", "_delta_log/_last_checkpoint");

    OptimizeResult optimized = reopened.optimize();
    assertThat(optimized.committed()).isTrue();
    assertThat(scan(reopened.latest())).isEqualTo(scan(local.latest()));
    VacuumResult vacuumed = reopened.vacuum(Duration.ZERO);
    assertThat(vacuumed.deletedFiles()).isNotEmpty().allSatisfy(f -> assertThat(f).doesNotStartWith("_"));
    assertThat(objects(store, "")).as("vacuum deleted them from the store").doesNotContainAnyElementsOf(
        vacuumed.deletedFiles());
    assertThat(scan(DeltaTable.open(store).latest())).isEqualTo(scan(local.latest()));

    alsoCheck(reopened, local);
  }

  @Test
  void shouldLetRacingWritersEachCommitOnceOnAGapFreeLog() throws Exception {
    int writers = 6;
    DeltaTable.create(store("race", "customers"), customers(), Map.of(), options());
    List<DeltaTable> tables = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      tables.add(DeltaTable.open(store("race", "customers"), options()));
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<CommitResult>> results = new ArrayList<>();
    try {
      CyclicBarrier start = new CyclicBarrier(writers);
      for (int i = 0; i < writers; i++) {
        DeltaTable t = tables.get(i);
        long key = 1000 + i;
        String app = "writer-" + i;
        results.add(pool.submit(() -> {
          start.await();
          return t.newCommit(Operation.MERGE).txns(Map.of(app, 1L)).apply(upserts(version(key, 0, null, "k" + key)));
        }));
      }
      List<Long> versions = new ArrayList<>();
      for (Future<CommitResult> f : results) {
        versions.add(f.get().version());
      }
      assertThat(versions).as("each writer committed once, on its own version").doesNotHaveDuplicates()
          .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L);
    } finally {
      pool.shutdownNow();
    }
    DeltaTable t = DeltaTable.open(store("race", "customers"));
    assertThat(t.history()).extracting(CommitSummary::version).containsExactly(6L, 5L, 4L, 3L, 2L, 1L, 0L);
    assertThat(scan(t.latest())).extracting(v -> v.key().values().get(0))
        .containsExactly(1000L, 1001L, 1002L, 1003L, 1004L, 1005L);
    for (int i = 0; i < writers; i++) {
      assertThat(t.txnVersion("writer-" + i)).isEqualTo(1);
    }
  }

  private static List<String> objects(ObjectStore store, String prefix) {
    try {
      return store.list(prefix, null).stream().map(ObjectInfo::key).toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
