package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.retract;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.DataFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Merge-on-read commits: new rows in new files, replaced rows marked in deletion vectors, read back by Kernel. */
class MergeOnReadTest {
  /** What Delta Spark writes for a table it moves to deletion vectors: the legacy writer features stay listed. */
  private static final Protocol MERGE_ON_READ =
      new Protocol(3, 7, List.of("deletionVectors"), List.of("appendOnly", "invariants", "deletionVectors"));

  @TempDir
  Path dir;

  /** Starts at the wall clock: vacuum compares it with the files' modification times. */
  private final MutableClock clock = new MutableClock(Instant.now());

  private DeltaTable create(Map<String, String> properties) {
    return DeltaTable.create(dir, customers(), properties, new TableOptions(clock, 3, Duration.ofMillis(1)));
  }

  /** Opens {@code n} keys in one commit; returns their versions. */
  private static List<Version> open(DeltaTable table, int n) {
    List<Version> rows = new ArrayList<>();
    for (long k = 1; k <= n; k++) {
      rows.add(version(k, 0, null, "v" + k));
    }
    table.newCommit(Operation.WRITE).apply(upserts(rows.toArray(Version[]::new)));
    return rows;
  }

  /** The close-out of {@code key}'s first version and its new one, as the topology emits them. */
  private static List<VersionChange> change(long key, long hour) {
    return upserts(version(key, 0, hour, "v" + key), version(key, hour, null, "w" + key));
  }

  private static List<Version> expectedAfterChange(List<Version> initial, List<Long> keys, long hour) {
    List<Version> out = new ArrayList<>();
    for (Version v : initial) {
      long k = (Long) v.key().values().get(0);
      if (keys.contains(k)) {
        out.add(version(k, 0, hour, "v" + k));
        out.add(version(k, hour, null, "w" + k));
      } else {
        out.add(v);
      }
    }
    return sorted(out);
  }

  @Test
  void shouldCreateTablesWithDeletionVectorsByDefault() {
    DeltaTable table = create(Map.of());
    Snapshot s = table.latest();
    assertThat(s.state.protocol).as("every feature in force listed, as Delta Spark requires")
        .isEqualTo(MERGE_ON_READ);
    assertThat(s.properties()).containsEntry("delta.enableDeletionVectors", "true");
    assertThat(KernelReader.latest(dir, customers())).isEmpty();
  }

  @Test
  void shouldMarkTheReplacedCurrentRowInsteadOfRewritingItsFile() {
    DeltaTable table = create(Map.of());
    List<Version> initial = open(table, 1000);
    AddFile bulk = table.latest().state.adds.values().iterator().next();

    List<VersionChange> changes = new ArrayList<>(change(7, 5));
    changes.addAll(change(500, 5));
    CommitResult r = table.newCommit(Operation.MERGE).apply(changes);

    Snapshot s = table.latest();
    AddFile marked = live(s, bulk.path());
    assertThat(marked).as("the file of the replaced rows stays, with a deletion vector").isNotNull();
    assertThat(marked.deletionVector().cardinality()).isEqualTo(2);
    assertThat(marked.size()).isEqualTo(bulk.size());
    assertThat(stats(marked).path("numRecords").asLong()).isEqualTo(1000);
    assertThat(stats(marked).path("tightBounds").asBoolean(true)).isFalse();
    assertThat(r.filesRemoved()).isEqualTo(1);
    assertThat(r.filesAdded()).as("a new current file, a new closed file, the marked file again").isEqualTo(3);
    List<Version> expected = expectedAfterChange(initial, List.of(7L, 500L), 5);
    assertThat(scan(s)).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
    assertThat(sorted(KernelReader.atVersion(dir, customers(), s.version() - 1))).isEqualTo(sorted(initial));
    assertThat(s.history(BusinessKey.of(7L))).containsExactly(version(7, 0, 5L, "v7"), version(7, 5, null, "w7"));
    assertThat(s.rowCount()).isEqualTo(1002);
  }

  @Test
  void shouldFindTheRowsOfABulkLoadedTableThroughThePositionIndex() {
    DeltaTable table = create(Map.of("dimstream.buckets", "4"));
    List<Version> initial = new ArrayList<>();
    for (long k = 1; k <= 400; k++) {
      initial.add(version(k, 0, null, "v" + k));
    }
    BulkLoad load = table.bulkLoad();
    Map<Integer, List<Version>> byBucket = new TreeMap<>();
    initial.forEach(v -> byBucket.computeIfAbsent(load.bucketOf(v.key()), b -> new ArrayList<>()).add(v));
    byBucket.forEach(load::write);
    load.commit(Operation.WRITE);
    Snapshot loaded = table.latest();
    assertThat(loaded.state.protocol).isEqualTo(MERGE_ON_READ);
    AddFile bucketFile = loaded.state.adds.values().stream().filter(loaded.layout::isCurrentFile).findFirst()
        .orElseThrow();
    int bucket = Buckets.parse(bucketFile.path(), load.buckets());
    long key = initial.stream().filter(v -> load.bucketOf(v.key()) == bucket).findFirst()
        .map(v -> (Long) v.key().values().get(0)).orElseThrow();

    table.newCommit(Operation.MERGE).apply(change(key, 5));

    Snapshot s = table.latest();
    AddFile marked = live(s, bucketFile.path());
    assertThat(marked).as("the bulk-loaded file stays, its replaced row marked").isNotNull();
    assertThat(marked.deletionVector().cardinality()).isEqualTo(1);
    List<Version> expected = expectedAfterChange(initial, List.of(key), 5);
    assertThat(scan(DeltaTable.open(dir).latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
  }

  @Test
  void shouldNameABulkLoadsClosedFilesForTheirBucketAndFindEveryKeysHistory() {
    DeltaTable table = create(Map.of("dimstream.buckets", "4"));
    List<Version> initial = new ArrayList<>();
    for (long k = 1; k <= 400; k++) {
      if (k % 3 == 0) {
        initial.add(version(k, 0, 2L, "old" + k));
        initial.add(version(k, 2, null, "v" + k));
      } else {
        initial.add(version(k, 0, null, "v" + k));
      }
    }
    BulkLoad load = table.bulkLoad();
    Map<Integer, List<Version>> byBucket = new TreeMap<>();
    initial.forEach(v -> byBucket.computeIfAbsent(load.bucketOf(v.key()), b -> new ArrayList<>()).add(v));
    byBucket.forEach(load::write);
    load.commit(Operation.WRITE);

    Snapshot loaded = table.latest();
    List<AddFile> closed = loaded.state.adds.values().stream().filter(a -> !loaded.layout.isCurrentFile(a)).toList();
    assertThat(closed).hasSize(4);
    for (AddFile f : closed) {
      int bucket = Buckets.parse(f.path(), 4);
      assertThat(bucket).as("the bucket in the name of %s", f.path()).isNotNegative();
      try (DataFiles.RowIterator rows = DataFiles.read(dir, f, loaded.layout, loaded.version())) {
        rows.forEachRemaining(v -> assertThat(load.bucketOf(v.key())).as("bucket of %s in %s", v.key(), f.path())
            .isEqualTo(bucket));
      }
    }

    // a merge-on-read commit closes versions into a file of rows of any bucket, which no lookup may skip
    List<VersionChange> changes = new ArrayList<>(upserts(version(7, 0, 5L, "v7"), version(7, 5, null, "w7")));
    changes.addAll(upserts(version(9, 2, 5L, "v9"), version(9, 5, null, "w9")));
    table.newCommit(Operation.MERGE).apply(changes);
    Snapshot s = table.latest();
    List<Version> expected = new ArrayList<>();
    for (Version v : initial) {
      long k = (Long) v.key().values().get(0);
      if ((k == 7 || k == 9) && v.isCurrent()) {
        expected.add(version(k, k == 7 ? 0 : 2, 5L, "v" + k));
        expected.add(version(k, 5, null, "w" + k));
      } else {
        expected.add(v);
      }
    }
    for (long k = 1; k <= 401; k++) {
      long key = k;
      assertThat(s.history(BusinessKey.of(key))).as("history of key %s", key)
          .isEqualTo(sorted(expected.stream().filter(v -> v.key().equals(BusinessKey.of(key))).toList()));
    }
  }

  @Test
  void shouldMergeANewMarkWithTheDeletionVectorAlreadyOnTheFile() {
    DeltaTable table = create(Map.of());
    List<Version> initial = open(table, 1000);
    String bulk = table.latest().state.adds.values().iterator().next().path();
    List<Long> keys = new ArrayList<>();
    for (long k = 1; k <= 600; k += 3) {
      keys.add(k);
      table.newCommit(Operation.MERGE).apply(change(k, 5));
    }
    AddFile marked = live(table.latest(), bulk);
    assertThat(marked.deletionVector().cardinality()).isEqualTo(keys.size());
    assertThat(marked.deletionVector().isInline()).as("200 scattered rows do not fit inline").isFalse();
    List<Version> expected = expectedAfterChange(initial, keys, 5);
    assertThat(scan(DeltaTable.open(dir).latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
  }

  @Test
  void shouldMarkACorrectedAndARetractedClosedRowInTheClosedFile() {
    DeltaTable table = create(Map.of());
    table.newCommit(Operation.WRITE)
        .apply(upserts(version(1, 0, 5L, "a"), version(1, 5, 9L, "b"), version(1, 9, null, "c"),
        version(2, 0, 4L, "w"), version(2, 4, null, "x")));
    // a late event splits [0, 5): the closed row is corrected, and [5, 9) is retracted by a re-fold
    List<VersionChange> late = new ArrayList<>(upserts(version(1, 0, 3L, "a"), version(1, 3, 9L, "a2")));
    late.add(retract(1, 5));
    CommitResult r = table.newCommit(Operation.MERGE).apply(late);
    assertThat(r.rowsUpdated()).isEqualTo(1);
    assertThat(r.rowsDeleted()).isEqualTo(1);
    List<Version> expected = sorted(List.of(version(1, 0, 3L, "a"), version(1, 3, 9L, "a2"),
        version(1, 9, null, "c"), version(2, 0, 4L, "w"), version(2, 4, null, "x")));
    assertThat(scan(table.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
    assertThat(table.latest().state.adds.values()).anyMatch(a -> !table.latest().isCurrentFile(a)
        && a.deletionVector() != null && a.deletionVector().cardinality() == 2);
  }

  @Test
  void shouldStillFindClosedRowsOnceTheirFilesWereReadAndFiltered() {
    DeltaTable table = create(Map.of());
    List<Version> initial = open(table, 300);
    List<Long> keys = new ArrayList<>();
    List<VersionChange> changes = new ArrayList<>();
    for (long k = 1; k <= 300; k++) {
      keys.add(k);
      changes.addAll(change(k, 5));
    }
    table.newCommit(Operation.MERGE).apply(changes);
    List<Version> expected = new ArrayList<>(expectedAfterChange(initial, keys, 5));
    // each commit brings new versions (absent from the table) beside corrections and retractions of closed rows:
    // the first reads the closed file, the later ones ask its identity filter and must still find their rows
    for (long round = 1; round <= 3; round++) {
      long fixed = round * 7;
      long retracted = round * 11;
      long added = 1000 + round;
      List<VersionChange> batch = new ArrayList<>(upserts(version(fixed, 0, 5L, "fix" + round),
          version(added, 5, null, "new" + round)));
      batch.add(retract(retracted, 0));
      table.newCommit(Operation.MERGE).apply(batch);
      expected.remove(version(fixed, 0, 5L, "v" + fixed));
      expected.add(version(fixed, 0, 5L, "fix" + round));
      expected.remove(version(retracted, 0, 5L, "v" + retracted));
      expected.add(version(added, 5, null, "new" + round));
      assertThat(sorted(KernelReader.latest(dir, customers()))).as("after round %d", round)
          .isEqualTo(sorted(expected));
    }
    assertThat(scan(table.latest())).isEqualTo(sorted(expected));
  }

  @Test
  void shouldMarkOnlyTheLiveRowWhenAClosedVersionIsCorrectedAgain() {
    DeltaTable table = create(Map.of());
    List<Version> initial = open(table, 50);
    List<VersionChange> changes = new ArrayList<>();
    List<Long> keys = new ArrayList<>();
    for (long k = 1; k <= 50; k++) {
      keys.add(k);
      changes.addAll(change(k, 5));
    }
    table.newCommit(Operation.MERGE).apply(changes);
    // each correction deletes the row the last one wrote: the older files still hold the identity at a deleted row
    for (int round = 1; round <= 8; round++) {
      CommitResult r = table.newCommit(Operation.MERGE).apply(upserts(version(7, 0, 5L, "fix" + round)));
      assertThat(r.rowsUpdated()).as("round %d replaces the one live row", round).isEqualTo(1);
      assertThat(scan(table.latest())).as("round %d", round).filteredOn(v -> v.key().equals(BusinessKey.of(7L)))
          .hasSize(2);
    }
    // a second process knows no positions: it reads the closed files, then corrects through what it learned
    DeltaTable reopened = DeltaTable.open(dir);
    for (int round = 9; round <= 10; round++) {
      CommitResult r = reopened.newCommit(Operation.MERGE).apply(upserts(version(7, 0, 5L, "fix" + round)));
      assertThat(r.rowsUpdated()).as("round %d replaces the one live row", round).isEqualTo(1);
    }
    List<Version> expected = new ArrayList<>(expectedAfterChange(initial, keys, 5));
    expected.remove(version(7, 0, 5L, "v7"));
    expected.add(version(7, 0, 5L, "fix10"));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(expected));
    assertThat(scan(reopened.latest())).isEqualTo(sorted(expected));
  }

  @Test
  void shouldFindRowsAfterReopeningThroughARebuiltIndex() {
    DeltaTable table = create(Map.of());
    List<Version> initial = open(table, 300);
    table.newCommit(Operation.MERGE).apply(change(10, 5));
    DeltaTable reopened = DeltaTable.open(dir);
    reopened.newCommit(Operation.MERGE).apply(change(11, 6));
    // the first instance's index is behind another writer's commit and must not mark a stale position
    table.newCommit(Operation.MERGE).apply(change(12, 7));
    List<Version> expected = new ArrayList<>(expectedAfterChange(initial, List.of(10L), 5));
    expected.removeIf(v -> v.key().values().get(0).equals(11L) || v.key().values().get(0).equals(12L));
    expected.addAll(List.of(version(11, 0, 6L, "v11"), version(11, 6, null, "w11"), version(12, 0, 7L, "v12"),
        version(12, 7, null, "w12")));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(expected));
    assertThat(scan(table.latest())).isEqualTo(sorted(expected));
  }

  @Test
  void shouldCompactFilesWithManyDeletedRowsWithoutChangingAnyRow() {
    DeltaTable table = create(Map.of("dimstream.compaction.smallFileRows", "1"));
    List<Version> initial = open(table, 1000);
    List<Long> keys = new ArrayList<>();
    for (long k = 1; k <= 400; k++) {
      keys.add(k);
    }
    List<VersionChange> changes = new ArrayList<>();
    keys.forEach(k -> changes.addAll(change(k, 5)));
    table.newCommit(Operation.MERGE).apply(changes);
    long before = table.latest().version();

    OptimizeResult r = table.newCompaction().runCycle();

    assertThat(r.committed()).isTrue();
    Snapshot s = table.latest();
    assertThat(s.state.adds.values()).allMatch(a -> a.deletionVector() == null);
    assertThat(table.history().get(0).operation()).isEqualTo("OPTIMIZE");
    List<Version> expected = expectedAfterChange(initial, keys, 5);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
    assertThat(sorted(KernelReader.atVersion(dir, customers(), before))).isEqualTo(expected);
    // the index follows the rewritten positions: a later change finds its row in the new file
    table.newCommit(Operation.MERGE).apply(upserts(version(900, 0, 8L, "v900"), version(900, 8, null, "w900")));
    List<Version> after = new ArrayList<>(expected);
    after.remove(version(900, 0, null, "v900"));
    after.addAll(List.of(version(900, 0, 8L, "v900"), version(900, 8, null, "w900")));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(after));
    assertThat(table.newCompaction().runCycle().committed()).as("nothing passes a threshold any more").isFalse();
  }

  @Test
  void shouldRewriteEachNewRowOnlyAFewTimesWhenEveryCommitIsFollowedByACompactionCycle() {
    DeltaTable table = create(Map.of());
    List<Version> expected = new ArrayList<>();
    long rewritten = 0;
    int commits = 32;
    for (int c = 0; c < commits; c++) {
      List<Version> rows = new ArrayList<>();
      for (long k = 1; k <= 100; k++) {
        rows.add(version(c * 1000L + k, 0, null, "v" + k));
      }
      expected.addAll(rows);
      table.newCommit(Operation.MERGE).apply(upserts(rows.toArray(Version[]::new)));
      rewritten += table.newCompaction().runCycle().rowsRewritten();
    }

    // Merging every small file after each commit rewrote the whole table each time: 100 * (2 + 3 + ... + 32) rows,
    // 16 times the rows committed. Merging files of similar size rewrites a row a few times (log of the growth).
    assertThat(rewritten).isLessThanOrEqualTo(100L * commits * 5).isGreaterThan(0);
    assertThat(table.latest().state.adds).as("a few files of growing size").hasSizeLessThanOrEqualTo(6);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(expected));
    table.newCompaction().runFull();
    assertThat(table.latest().state.adds).as("a full compaction merges every small file").hasSize(1);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(expected));
  }

  @Test
  void shouldLeaveThePreviousVersionReadableAfterACrashMidCommitAndVacuumTheOrphans() throws IOException {
    DeltaTable table = create(Map.of());
    List<Version> initial = open(table, 1000);
    Path commit = dir.resolve("_delta_log").resolve(String.format("%020d.json", 2));
    List<VersionChange> changes = new ArrayList<>();
    for (long k = 1; k <= 600; k += 3) {
      changes.addAll(change(k, 5));
    }
    table.newCommit(Operation.MERGE).apply(changes);
    // the process died after writing data and DV files but before the commit file existed
    Files.delete(commit);
    Files.deleteIfExists(dir.resolve("_delta_log").resolve(String.format("%020d.crc", 2)));
    assertThat(dvFiles()).isNotEmpty();

    DeltaTable reopened = DeltaTable.open(dir, new TableOptions(clock, 3, Duration.ofMillis(1)));
    assertThat(scan(reopened.latest())).isEqualTo(sorted(initial));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(initial));
    clock.advance(Duration.ofHours(1));
    VacuumResult v = reopened.vacuum(Duration.ZERO);
    assertThat(dvFiles()).isEmpty();
    assertThat(v.deletedFiles()).anyMatch(f -> f.startsWith("deletion_vector_"))
        .anyMatch(f -> f.endsWith(".parquet"));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(initial));
  }

  @Test
  void shouldVacuumOnlyTheDeletionVectorFilesNoVersionWithinTheRetentionNeeds() throws IOException {
    DeltaTable table = create(Map.of("dimstream.compaction.smallFileRows", "1"));
    List<Version> initial = open(table, 1000);
    List<Long> keys = new ArrayList<>();
    List<VersionChange> changes = new ArrayList<>();
    for (long k = 1; k <= 1000; k += 2) {
      keys.add(k);
      changes.addAll(change(k, 5));
    }
    table.newCommit(Operation.MERGE).apply(changes);
    List<Path> dvs = dvFiles();
    assertThat(dvs).hasSize(1);
    clock.advance(Duration.ofHours(1));
    table.newCompaction().runFull();
    assertThat(table.vacuum(Duration.ofMinutes(30)).deletedFiles()).as("removed 0 minutes ago: kept").isEmpty();
    assertThat(dvFiles()).isEqualTo(dvs);
    clock.advance(Duration.ofHours(1));
    assertThat(table.vacuum(Duration.ofMinutes(30)).deletedFiles()).anyMatch(f -> f.startsWith("deletion_vector_"));
    assertThat(dvFiles()).isEmpty();
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expectedAfterChange(initial, keys, 5));
  }

  @Test
  void shouldUpgradeACopyOnWriteTableInOneCommit() {
    DeltaTable table = create(Map.of("delta.enableDeletionVectors", "false"));
    List<Version> initial = open(table, 200);
    assertThat(table.latest().state.protocol).isEqualTo(Protocol.DEFAULT);

    assertThat(table.upgradeToDeletionVectors()).isTrue();
    assertThat(table.upgradeToDeletionVectors()).as("already upgraded").isFalse();
    Snapshot s = table.latest();
    assertThat(s.version()).isEqualTo(2);
    assertThat(s.state.protocol.supportsDeletionVectors()).isTrue();
    assertThat(s.properties()).containsEntry("delta.enableDeletionVectors", "true");
    table.newCommit(Operation.MERGE).apply(change(3, 5));
    assertThat(table.latest().state.adds.values()).anyMatch(a -> a.deletionVector() != null);
    assertThat(sorted(KernelReader.latest(dir, customers())))
        .isEqualTo(expectedAfterChange(initial, List.of(3L), 5));
  }

  @Test
  void shouldRefuseToUpgradeATableANewerProtocolGoverns() throws IOException {
    DeltaTable table = create(Map.of("delta.enableDeletionVectors", "false"));
    Snapshot s = table.latest();
    // another engine raised the writer version (say for change data feed) without deletion vectors
    table.writer().write(1, List.of(new Protocol(1, 4)), clock.millis(), List.of(), s.state);
    assertThatThrownBy(table::upgradeToDeletionVectors).isInstanceOf(TableException.class)
        .hasMessageContaining("reader version 1 / writer version 4").hasMessageContaining("Fix:");
    assertThat(table.latest().version()).isEqualTo(1);
  }

  /** The live add of a data file (the log keys files by path and DV, so look it up by path). */
  private static AddFile live(Snapshot s, String path) {
    return s.state.adds.values().stream().filter(a -> a.path().equals(path)).findFirst().orElse(null);
  }

  private List<Path> dvFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith("deletion_vector_")).sorted().toList();
    }
  }

  private static JsonNode stats(AddFile a) {
    try {
      return ActionCodec.JSON.readTree(a.stats());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
