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
import java.util.List;
import java.util.Map;
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
