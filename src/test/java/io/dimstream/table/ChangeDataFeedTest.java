package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.retract;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.table.ChangeDataFeedProperties.ChangeRow;
import io.dimstream.table.internal.actions.AddCDCFile;
import io.dimstream.table.internal.files.TableLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The change data feed a table writes with {@code delta.enableChangeDataFeed=true}, commit by commit. */
class ChangeDataFeedTest {
  private static final TableLayout LAYOUT = new TableLayout(customers());

  @TempDir
  Path dir;

  private DeltaTable create(boolean deletionVectors, boolean feed) {
    return DeltaTable.create(dir, customers(), feed
        ? Map.of("delta.enableDeletionVectors", Boolean.toString(deletionVectors), "delta.enableChangeDataFeed", "true")
        : Map.of("delta.enableDeletionVectors", Boolean.toString(deletionVectors)));
  }

  @ParameterizedTest(name = "deletion vectors {0}")
  @ValueSource(booleans = {true, false})
  void shouldRecordAClosedVersionAsPreimageAndPostimageAndItsSuccessorAsInsert(boolean deletionVectors)
      throws IOException {
    DeltaTable t = create(deletionVectors, true);
    long first = t.newCommit(Operation.MERGE).apply(upserts(version(1, 0, null, "a"), version(2, 0, null, "x")))
        .version();
    long second = t.newCommit(Operation.MERGE).apply(upserts(version(1, 0, 2L, "a"), version(1, 2, null, "b")))
        .version();

    // the first commit only adds rows: readers take its adds as inserts, so it may write no change data
    assertThat(cdc(first)).isEmpty();
    assertThat(ChangeDataFeedProperties.changeRows(dir, LAYOUT, second)).containsExactlyInAnyOrder(
        new ChangeRow(version(1, 0, null, "a"), "update_preimage"),
        new ChangeRow(version(1, 0, 2L, "a"), "update_postimage"),
        new ChangeRow(version(1, 2, null, "b"), "insert"));
  }

  @ParameterizedTest(name = "deletion vectors {0}")
  @ValueSource(booleans = {true, false})
  void shouldRecordARetractedVersionAsDeleteAndTheReopenedOneAsUpdate(boolean deletionVectors) throws IOException {
    DeltaTable t = create(deletionVectors, true);
    t.newCommit(Operation.MERGE).apply(upserts(version(1, 0, 2L, "a"), version(1, 2, null, "b")));
    // a late event made the second version redundant: it is retracted and the first one is open again
    long v = t.newCommit(Operation.MERGE).apply(List.of(retract(1, 2),
        Versions.upsert(version(1, 0, null, "a")))).version();

    assertThat(ChangeDataFeedProperties.changeRows(dir, LAYOUT, v)).containsExactlyInAnyOrder(
        new ChangeRow(version(1, 2, null, "b"), "delete"),
        new ChangeRow(version(1, 0, 2L, "a"), "update_preimage"),
        new ChangeRow(version(1, 0, null, "a"), "update_postimage"));
  }

  /**
   * The rows before are read back by position from the files that hold them: here a bulk load's bucket files (rows
   * of neighbouring keys on one page, others pages apart), its closed files, a file a commit wrote, and the same
   * bucket files again once a deletion vector marks them.
   */
  @Test
  void shouldRecordTheRowsReplacedInBulkLoadedAndCommittedFiles() throws IOException {
    DeltaTable t = DeltaTable.create(dir, customers(), Map.of("dimstream.buckets", "2",
        "delta.enableChangeDataFeed", "true"));
    List<Version> initial = new ArrayList<>();
    for (long k = 1; k <= 6_000; k++) {
      if (k % 3 == 0) {
        initial.add(version(k, 0, 2L, "old" + k));
        initial.add(version(k, 2, null, "v" + k));
      } else {
        initial.add(version(k, 0, null, "v" + k));
      }
    }
    BulkLoad load = t.bulkLoad();
    Map<Integer, List<Version>> byBucket = new TreeMap<>();
    initial.forEach(v -> byBucket.computeIfAbsent(load.bucketOf(v.key()), b -> new ArrayList<>()).add(v));
    byBucket.forEach(load::write);
    load.commit(Operation.WRITE);

    List<VersionChange> first = new ArrayList<>();
    for (long k : new long[] {1, 2, 4, 5, 7, 2_500, 4_001, 5_999}) {
      first.add(Versions.upsert(version(k, 0, 5L, "v" + k)));
      first.add(Versions.upsert(version(k, 5, null, "w" + k)));
    }
    first.add(Versions.upsert(version(3, 0, 2L, "corrected"))); // a closed row, in a closed file
    first.add(retract(6, 0)); // a closed row retracted
    assertChangeRowsAreTheDifference(t, t.newCommit(Operation.MERGE).apply(first).version());

    List<VersionChange> second = new ArrayList<>();
    for (long k : new long[] {1, 2, 8, 10, 11, 3_001, 5_998}) {
      // keys 1 and 2 were opened by the first commit, in a file it wrote; the others' bucket files now have a DV
      long from = k <= 2 ? 5 : 0;
      second.add(Versions.upsert(version(k, from, 9L, (k <= 2 ? "w" : "v") + k)));
      second.add(Versions.upsert(version(k, 9, null, "x" + k)));
    }
    assertChangeRowsAreTheDifference(t, t.newCommit(Operation.MERGE).apply(second).version());
  }

  /** The commit's preimage and delete rows are the rows it removed, its postimage and insert rows those it added. */
  private void assertChangeRowsAreTheDifference(DeltaTable t, long version) throws IOException {
    List<Version> before = Versions.scan(t.snapshotAt(version - 1));
    List<Version> after = Versions.scan(t.snapshotAt(version));
    List<ChangeRow> rows = ChangeDataFeedProperties.changeRows(dir, LAYOUT, version);
    assertThat(Versions.sorted(rows.stream().filter(r -> r.type().equals("update_preimage")
        || r.type().equals("delete")).map(ChangeRow::version).toList()))
        .as("rows removed by version %d", version)
        .isEqualTo(before.stream().filter(v -> !after.contains(v)).toList());
    assertThat(Versions.sorted(rows.stream().filter(r -> r.type().equals("update_postimage")
        || r.type().equals("insert")).map(ChangeRow::version).toList()))
        .as("rows added by version %d", version)
        .isEqualTo(after.stream().filter(v -> !before.contains(v)).toList());
    assertThat(rows).as("change rows of version %d", version).isNotEmpty();
  }

  @Test
  void shouldWriteNoChangeDataForACompaction() throws IOException {
    DeltaTable t = create(true, true);
    for (int i = 0; i < 4; i++) {
      t.newCommit(Operation.MERGE).apply(upserts(version(1, i, (long) i + 1, "a" + i), version(1, i + 1, null,
          "a" + (i + 1))));
    }
    long before = t.latest().version();
    t.newCompaction().runFull();

    assertThat(t.latest().version()).isGreaterThan(before);
    for (long v = before + 1; v <= t.latest().version(); v++) {
      assertThat(cdc(v)).as("version %d", v).isEmpty();
    }
  }

  @Test
  void shouldWriteNoChangeDataWithoutTheProperty() throws IOException {
    DeltaTable t = create(true, false);
    t.newCommit(Operation.MERGE).apply(upserts(version(1, 0, null, "a")));
    long v = t.newCommit(Operation.MERGE).apply(upserts(version(1, 0, 2L, "a"), version(1, 2, null, "b"))).version();

    assertThat(cdc(v)).isEmpty();
    assertThat(dir.resolve("_change_data")).doesNotExist();
    assertThat(t.properties()).doesNotContainKey("delta.enableChangeDataFeed");
    assertThat(Protocols.latest(t).writerFeatureList()).doesNotContain("changeDataFeed");
  }

  @Test
  void shouldListTheChangeDataFeedFeatureBesideDeletionVectors() {
    DeltaTable t = create(true, true);

    assertThat(t.properties()).containsEntry("delta.enableChangeDataFeed", "true");
    assertThat(Protocols.latest(t).minWriterVersion()).isEqualTo(7);
    assertThat(Protocols.latest(t).writerFeatureList()).contains("changeDataFeed", "deletionVectors");
  }

  @Test
  void shouldVacuumChangeDataFilesPastTheRetentionOnly() throws IOException {
    DeltaTable t = create(true, true);
    t.newCommit(Operation.MERGE).apply(upserts(version(1, 0, null, "a")));
    long v = t.newCommit(Operation.MERGE).apply(upserts(version(1, 0, 2L, "a"), version(1, 2, null, "b"))).version();
    List<Path> files = cdc(v).stream().map(c -> dir.resolve(c.path())).toList();
    assertThat(files).isNotEmpty().allMatch(Files::exists);

    t.vacuum(Duration.ofDays(7));
    assertThat(files).allMatch(Files::exists);
    for (Path f : files) {
      Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.fromMillis(0));
    }
    t.vacuum(Duration.ofDays(7));
    assertThat(files).noneMatch(Files::exists);
    try (Stream<Path> log = Files.list(dir.resolve("_delta_log"))) {
      assertThat(log).isNotEmpty();
    }
  }

  private List<AddCDCFile> cdc(long version) throws IOException {
    return ChangeDataFeedProperties.commit(dir, version).stream().filter(a -> a instanceof AddCDCFile)
        .map(a -> (AddCDCFile) a).toList();
  }
}
