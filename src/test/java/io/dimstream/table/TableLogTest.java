package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.commit.CommitPlanner;
import io.dimstream.table.internal.log.DeltaLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log: checkpoints, time travel, history, txn markers, conflicts, corruption, vacuum. */
class TableLogTest {
  @TempDir
  Path dir;

  private final MutableClock clock = new MutableClock(Instant.now());

  private DeltaTable create(Map<String, String> props) {
    return DeltaTable.create(dir, customers(), props, TableOptions.defaults().withClock(clock));
  }

  /** Commits version i: key i opens, key i-1 (if any) gets closed and reopened. Returns the expected rows per version. */
  private List<List<Version>> commitSeries(DeltaTable table, int commits) {
    List<List<Version>> expected = new ArrayList<>();
    expected.add(List.of());
    List<Version> rows = new ArrayList<>();
    for (int i = 1; i <= commits; i++) {
      clock.advance(Duration.ofMinutes(1));
      List<Version> batch = new ArrayList<>();
      batch.add(version(i, i, null, "n" + i));
      if (i > 1) {
        batch.add(version(i - 1, i - 1, (long) i, "n" + (i - 1)));
        batch.add(version(i - 1, i, null, "m" + (i - 1)));
        long prev = i - 1;
        rows.removeIf(v -> v.key().values().get(0).equals(prev) && v.isCurrent());
      }
      rows.addAll(batch);
      table.newCommit(Operation.MERGE).txns(Map.of("app", (long) i)).apply(upserts(batch.toArray(Version[]::new)));
      expected.add(sorted(rows));
    }
    return expected;
  }

  @Test
  void shouldReadEveryVersionAlikeWithKernelFromCommitsAndCheckpoints() {
    DeltaTable table = create(Map.of("delta.checkpointInterval", "3", "dimstream.buckets", "2"));
    List<List<Version>> expected = commitSeries(table, 7);
    assertThat(Files.exists(table.path().resolve(DeltaLog.checkpointKey(6)))).isTrue();
    assertThat(Files.exists(table.path().resolve(DeltaLog.lastCheckpointKey()))).isTrue();
    DimensionSpec spec = customers();
    for (long v = 1; v <= 7; v++) {
      assertThat(scan(table.snapshotAt(v))).as("ours at %d", v).isEqualTo(expected.get((int) v));
      assertThat(sorted(KernelReader.atVersion(dir, spec, v))).as("kernel at %d", v).isEqualTo(expected.get((int) v));
    }
    assertThat(sorted(KernelReader.latest(dir, spec))).isEqualTo(expected.get(7));
    // a fresh reader loads the checkpoint plus one commit
    DeltaTable reopened = DeltaTable.open(dir);
    assertThat(scan(reopened.latest())).isEqualTo(expected.get(7));
    assertThat(reopened.txnVersion("app")).isEqualTo(7);
  }

  @Test
  void shouldReadFromCheckpointAloneWhenEarlierCommitsAreGone() throws IOException {
    DeltaTable table = create(Map.of("delta.checkpointInterval", "4"));
    List<List<Version>> expected = commitSeries(table, 5);
    for (long v = 0; v < 4; v++) {
      Files.delete(table.path().resolve(DeltaLog.commitKey(v)));
    }
    assertThat(scan(DeltaTable.open(dir).latest())).isEqualTo(expected.get(5));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected.get(5));
    assertThat(sorted(KernelReader.atVersion(dir, customers(), 4))).isEqualTo(expected.get(4));
    assertThatThrownBy(() -> DeltaTable.open(dir).snapshotAt(2))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("cannot load table version 2").hasMessageContaining("4..5");
  }

  @Test
  void shouldTravelByTimestampLikeKernel() {
    DeltaTable table = create(Map.of());
    List<List<Version>> expected = commitSeries(table, 3);
    Instant second = table.snapshotAt(2).timestamp();
    assertThat(scan(table.snapshotAsOf(second.plusSeconds(30)))).isEqualTo(expected.get(2));
    assertThat(table.snapshotAsOf(second.plusSeconds(30)).version()).isEqualTo(2);
    assertThat(sorted(KernelReader.atTimestamp(dir, customers(), second.plusSeconds(30).toEpochMilli())))
        .isEqualTo(expected.get(2));
    assertThat(table.snapshotAsOf(second).version()).isEqualTo(2);
    assertThat(table.snapshotAsOf(second.minusMillis(1)).version()).isEqualTo(1);
    assertThatThrownBy(() -> table.snapshotAsOf(Instant.parse("2000-01-01T00:00:00Z")))
        .isInstanceOf(TableException.class).hasMessageContaining("no table version existed at 2000-01-01");
  }

  @Test
  void shouldListOperationsWithDeltaMetricsNewestFirst() {
    DeltaTable table = create(Map.of());
    commitSeries(table, 2);
    List<CommitSummary> h = table.history();
    assertThat(h).extracting(CommitSummary::version).containsExactly(2L, 1L, 0L);
    assertThat(h).extracting(CommitSummary::operation).containsExactly("MERGE", "MERGE", "CREATE TABLE");
    Map<String, String> m = h.get(0).operationMetrics();
    assertThat(m).containsEntry("numTargetRowsInserted", "2").containsEntry("numTargetRowsUpdated", "1")
        .containsEntry("numTargetRowsDeleted", "0").containsEntry("numSourceRows", "3")
        .containsKeys("numOutputRows", "numTargetFilesAdded", "numTargetFilesRemoved", "executionTimeMs");
    assertThat(h.get(0).timestamp()).isAfter(h.get(1).timestamp());
  }

  @Test
  void shouldNameTextThatIsNotUnicodeAsTheReasonACommitCannotBeWritten() {
    DeltaTable table = create(Map.of());

    assertThatThrownBy(() -> table.newCommit(Operation.MERGE).txns(Map.of("p0", 1L))
        .apply(upserts(version(1, 0, null, "\uD800"))))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("not valid Unicode").hasMessageContaining("lone UTF-16 surrogate")
        .hasMessageNotContaining("disk is not full");
    assertThat(table.latest().version()).isZero();
  }

  @Test
  void shouldChangeNothingWhenTxnVersionsAreAlreadyRecorded() {
    DeltaTable table = create(Map.of());
    table.newCommit(Operation.MERGE).txns(Map.of("p0", 10L, "p1", 3L)).apply(upserts(version(1, 0, null, "a")));
    CommitResult again = table.newCommit(Operation.MERGE).txns(Map.of("p0", 10L, "p1", 2L))
        .apply(upserts(version(1, 0, null, "CHANGED")));
    assertThat(again.committed()).isFalse();
    assertThat(again.version()).isEqualTo(1);
    assertThat(table.latest().version()).isEqualTo(1);
    assertThat(scan(table.latest())).containsExactly(version(1, 0, null, "a"));
    // a batch of which only part is recorded overlaps another writer's work: refused, nothing written
    assertThatThrownBy(() -> table.newCommit(Operation.MERGE).txns(Map.of("p0", 10L, "p1", 4L))
        .apply(upserts(version(1, 0, null, "b"))))
        .isInstanceOf(TxnOverlapException.class).hasMessageContaining("p0").hasMessageContaining("Fix:");
    assertThat(table.latest().version()).isEqualTo(1);
    assertThat(scan(table.latest())).containsExactly(version(1, 0, null, "a"));
    CommitResult newer = table.newCommit(Operation.MERGE).txns(Map.of("p1", 4L))
        .apply(upserts(version(1, 0, null, "b")));
    assertThat(newer.committed()).isTrue();
    assertThat(table.txnVersion("p1")).isEqualTo(4);
    assertThat(table.txnVersion("unknown")).isEqualTo(-1);
    // a lower version given alongside a new one never moves the recorded marker back
    assertThatThrownBy(() -> table.newCommit(Operation.MERGE).txns(Map.of("p0", 9L, "p2", 1L))
        .apply(upserts(version(2, 0, null, "c"))))
        .isInstanceOf(TxnOverlapException.class);
    assertThat(table.txnVersion("p0")).isEqualTo(10);
    assertThat(KernelReader.txnVersion(dir, "p0")).contains(10L);
    assertThat(table.txnVersion("p2")).isEqualTo(-1);
  }

  @Test
  void shouldLetExactlyOneOfTwoRacingWritersWin() {
    create(Map.of());
    DeltaTable a = DeltaTable.open(dir);
    DeltaTable b = DeltaTable.open(dir);
    Transaction ta = a.startTransaction();
    Transaction tb = b.startTransaction();
    CommitResult won = ta.newCommit(Operation.MERGE).txns(Map.of("a", 1L))
        .apply(upserts(version(1, 0, null, "from-a")));
    assertThat(won.version()).isEqualTo(1);
    assertThatThrownBy(() -> tb.newCommit(Operation.MERGE).txns(Map.of("b", 1L))
        .apply(upserts(version(2, 0, null, "from-b"))))
        .isInstanceOf(CommitConflictException.class).hasMessageContaining("00000000000000000001.json");
    // the loser left no data file behind and the log is valid
    assertThat(scan(DeltaTable.open(dir).latest())).containsExactly(version(1, 0, null, "from-a"));
    assertThat(sorted(KernelReader.latest(dir, customers()))).containsExactly(version(1, 0, null, "from-a"));
    assertThat(dataFiles()).hasSize(1);
    // with retries the loser re-plans on the new snapshot and keeps the winner's rows
    CommitResult retried = b.newCommit(Operation.MERGE).txns(Map.of("b", 1L))
        .apply(upserts(version(2, 0, null, "from-b")));
    assertThat(retried.version()).isEqualTo(2);
    assertThat(scan(a.latest())).containsExactly(version(1, 0, null, "from-a"), version(2, 0, null, "from-b"));
  }

  @Test
  void shouldSerializeConcurrentWritersWithoutLosingRows() throws Exception {
    create(Map.of("dimstream.buckets", "2"));
    int writers = 2;
    int perWriter = 5;
    List<Thread> threads = new ArrayList<>();
    List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int w = 0; w < writers; w++) {
      int id = w;
      DeltaTable t = DeltaTable.open(dir, TableOptions.defaults().withMaxCommitAttempts(50));
      threads.add(new Thread(() -> {
        try {
          for (int i = 0; i < perWriter; i++) {
            t.newCommit(Operation.MERGE).txns(Map.of("w" + id, (long) i))
                .apply(upserts(version(id * 100 + i, 0, null, "w" + id)));
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(errors).isEmpty();
    DeltaTable t = DeltaTable.open(dir);
    assertThat(t.latest().version()).isEqualTo(writers * perWriter);
    assertThat(scan(t.latest())).hasSize(writers * perWriter);
    assertThat(KernelReader.latest(dir, customers())).hasSize(writers * perWriter);
  }

  @Test
  void shouldNameTheCorruptCommitFile() throws IOException {
    DeltaTable table = create(Map.of());
    commitSeries(table, 2);
    Path commit = table.path().resolve(DeltaLog.commitKey(2));
    String content = Files.readString(commit);
    Files.writeString(commit, content.substring(0, content.length() / 2));
    assertThatThrownBy(() -> DeltaTable.open(dir))
        .isInstanceOf(TableException.class)
        .hasMessageContaining(commit.toString()).hasMessageContaining("corrupt or was truncated");
    // never wrong rows: the reference reader refuses the latest version too, and still reads the older one
    assertThatThrownBy(() -> KernelReader.latest(dir, customers())).isInstanceOf(Exception.class);
    assertThat(KernelReader.atVersion(dir, customers(), 1)).containsExactly(version(1, 1, null, "n1"));
  }

  @Test
  void shouldDetectACommitTruncatedAtALineBoundary() throws IOException {
    DeltaTable table = create(Map.of());
    commitSeries(table, 2);
    Path commit = table.path().resolve(DeltaLog.commitKey(2));
    List<String> lines = Files.readAllLines(commit, StandardCharsets.UTF_8);
    Files.write(commit, lines.subList(0, lines.size() - 1), StandardCharsets.UTF_8);
    assertThatThrownBy(() -> DeltaTable.open(dir))
        .isInstanceOf(TableException.class)
        .hasMessageContaining(commit.toString()).hasMessageContaining("truncated");
  }

  @Test
  void shouldNameACorruptCheckpoint() throws IOException {
    DeltaTable table = create(Map.of("delta.checkpointInterval", "2"));
    commitSeries(table, 2);
    Path checkpoint = table.path().resolve(DeltaLog.checkpointKey(2));
    byte[] bytes = Files.readAllBytes(checkpoint);
    Files.write(checkpoint, Arrays.copyOf(bytes, bytes.length / 2));
    assertThatThrownBy(() -> DeltaTable.open(dir))
        .isInstanceOf(TableException.class)
        .hasMessageContaining(checkpoint.toString()).hasMessageContaining("cannot read the checkpoint");
  }

  @Test
  void shouldNameAMissingDataFile() throws IOException {
    DeltaTable table = create(Map.of());
    commitSeries(table, 1);
    Path file = dataFiles().get(0);
    Files.delete(file);
    assertThatThrownBy(() -> scan(DeltaTable.open(dir).latest()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining(file.toString()).hasMessageContaining("does not exist");
  }

  @Test
  void shouldLeaveTheTableAtThePreviousVersionWhenAWriterDiesAndVacuumTheOrphans() {
    DeltaTable table = create(Map.of());
    commitSeries(table, 2);
    List<Path> before = dataFiles();
    // a writer that wrote its data files and died before writing the commit
    Snapshot s = table.latest();
    CommitPlanner dead = new CommitPlanner(table.store(), s.state, s.layout, table.statsCache());
    dead.plan(upserts(version(9, 9, null, "never committed")));
    assertThat(dataFiles()).hasSizeGreaterThan(before.size());
    DeltaTable reopened = DeltaTable.open(dir);
    assertThat(reopened.latest().version()).isEqualTo(2);
    assertThat(scan(reopened.latest())).noneMatch(v -> v.key().values().get(0).equals(9L));
    assertThat(KernelReader.latestVersion(dir)).isEqualTo(2);
    // within the retention nothing referenced by a recent snapshot is deleted, the orphans are too young
    clock.advance(Duration.ofHours(1));
    assertThat(reopened.vacuum(Duration.ofHours(2)).deletedFiles()).isEmpty();
    clock.advance(Duration.ofDays(1));
    DeltaTable later = DeltaTable.open(dir, TableOptions.defaults().withClock(clock));
    List<Version> rows = scan(later.latest());
    VacuumResult vacuumed = later.vacuum(Duration.ofHours(1));
    assertThat(vacuumed.deletedFiles()).isNotEmpty();
    assertThat(dataFiles()).hasSize(later.latest().fileCount());
    assertThat(scan(later.latest())).isEqualTo(rows);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(rows);
    assertThat(later.history().get(0).operation()).isEqualTo("VACUUM END");
    assertThat(later.history().get(1).operation()).isEqualTo("VACUUM START");
  }

  @Test
  void shouldRefuseAVacuumRetentionLongerThanTheTombstoneRetention() {
    DeltaTable table = create(Map.of("delta.deletedFileRetentionDuration", "interval 2 days"));
    assertThatThrownBy(() -> table.vacuum(Duration.ofDays(3)))
        .isInstanceOf(TableException.class).hasMessageContaining("delta.deletedFileRetentionDuration");
  }

  private List<Path> dataFiles() {
    try (var s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith(".parquet") && !p.toString().contains("_delta_log")).toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
