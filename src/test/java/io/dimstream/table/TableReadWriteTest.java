package io.dimstream.table;

import static io.dimstream.table.Versions.at;
import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.retract;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.files.DataFiles;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Readers (as-of, key history, file skipping), corrections of closed versions, optimize, schema evolution, types. */
class TableReadWriteTest {
  @TempDir
  Path dir;

  /** Keys 1..n opened at hour 0, closed and reopened at 10, then at 20: two closed files and the current buckets. */
  private DeltaTable threeGenerations(int n) {
    return threeGenerations(n, Map.of("dimstream.buckets", "2"));
  }

  private DeltaTable threeGenerations(int n, Map<String, String> properties) {
    DeltaTable table = DeltaTable.create(dir, customers(), properties);
    List<Version> batch = new ArrayList<>();
    for (long k = 1; k <= n; k++) {
      batch.add(version(k, 0, null, "g0"));
    }
    table.newCommit(Operation.WRITE).apply(upserts(batch.toArray(Version[]::new)));
    for (long gen = 1; gen <= 2; gen++) {
      batch.clear();
      for (long k = 1; k <= n; k++) {
        batch.add(version(k, (gen - 1) * 10, gen * 10, "g" + (gen - 1)));
        batch.add(version(k, gen * 10, null, "g" + gen));
      }
      table.newCommit(Operation.MERGE).apply(upserts(batch.toArray(Version[]::new)));
    }
    return table;
  }

  private static List<Version> rows(Stream<Version> s) {
    try (s) {
      return sorted(s.toList());
    }
  }

  private Path closedFileWith(DeltaTable table, long validFromHour) {
    Snapshot s = table.latest();
    return s.state.adds.values().stream()
        .filter(a -> !s.isCurrentFile(a))
        .filter(a -> table.stats(a, s.layout).validFromMin == at(validFromHour).first())
        .map(a -> DataFiles.resolve(dir, a.path())).findFirst().orElseThrow();
  }

  @Test
  void shouldAnswerAsOfWithHalfOpenIntervals() {
    DeltaTable table = threeGenerations(3);
    Snapshot s = table.latest();
    assertThat(rows(s.asOf(at(5).first()))).extracting(v -> v.attributes().get(0)).containsOnly("g0").hasSize(3);
    assertThat(rows(s.asOf(at(10).first()))).extracting(v -> v.attributes().get(0)).containsOnly("g1").hasSize(3);
    assertThat(rows(s.asOf(at(99)))).extracting(v -> v.attributes().get(0)).containsOnly("g2").hasSize(3);
    assertThat(rows(s.asOf(at(-1).first()))).isEmpty();
    assertThat(rows(s.current())).hasSize(3).allMatch(Version::isCurrent);
    assertThat(s.rowCount()).isEqualTo(9);
  }

  @Test
  void shouldSkipFilesWhoseStatisticsRuleThemOut() throws IOException {
    DeltaTable table = threeGenerations(3);
    Path middle = closedFileWith(table, 10);
    Files.delete(middle);
    Snapshot s = table.latest();
    // neither query may touch the deleted file: statistics prove it irrelevant
    assertThat(rows(s.asOf(at(5).first()))).hasSize(3);
    assertThat(rows(s.asOf(at(25).first()))).hasSize(3);
    assertThatThrownBy(() -> rows(s.asOf(at(15).first())))
        .isInstanceOf(TableException.class).hasMessageContaining(middle.toString());
  }

  @Test
  void shouldWriteStatisticsThatKernelUsesToSkipFiles() {
    DeltaTable table = threeGenerations(3);
    Snapshot s = table.latest();
    long currentFiles = s.state.adds.values().stream().filter(s::isCurrentFile).count();
    int all = KernelReader.scanFileCount(dir, null);
    assertThat(all).isEqualTo(currentFiles + 2);
    // valid_from is 0h and 10h in the two closed files, 20h in the current ones
    assertThat(KernelReader.scanFileCount(dir, timestampPredicate(">=", "valid_from", 20))).isEqualTo(currentFiles);
    assertThat(KernelReader.scanFileCount(dir, timestampPredicate(">", "valid_from", 25))).isZero();
    assertThat(KernelReader.scanFileCount(dir, timestampPredicate("<", "valid_from", 5))).isEqualTo(1);
    io.delta.kernel.expressions.Predicate absentKey = new io.delta.kernel.expressions.Predicate("=",
        new io.delta.kernel.expressions.Column("customer_id"), io.delta.kernel.expressions.Literal.ofLong(99));
    assertThat(KernelReader.scanFileCount(dir, absentKey)).isZero();
  }

  private static io.delta.kernel.expressions.Predicate timestampPredicate(String op, String column, long hour) {
    return new io.delta.kernel.expressions.Predicate(op, new io.delta.kernel.expressions.Column(column),
        io.delta.kernel.expressions.Literal.ofTimestamp(at(hour).first()));
  }

  @Test
  void shouldReturnOneKeysHistoryOldestFirstReadingOnlyFilesThatMayHoldIt() throws IOException {
    DeltaTable table = threeGenerations(3);
    table.newCommit(Operation.MERGE).apply(upserts(version(100, 0, 7L, "other"), version(100, 7, null, "other2")));
    assertThat(table.latest().history(BusinessKey.of(2L)))
        .containsExactly(version(2, 0, 10L, "g0"), version(2, 10, 20L, "g1"), version(2, 20, null, "g2"));
    // an int given for the long key column is accepted
    assertThat(table.latest().history(BusinessKey.of(2))).hasSize(3);
    assertThat(table.latest().history(BusinessKey.of(42L))).isEmpty();
    Files.delete(closedFileWith(table, 10));
    assertThat(table.latest().history(BusinessKey.of(100L)))
        .containsExactly(version(100, 0, 7L, "other"), version(100, 7, null, "other2"));
  }

  @Test
  void shouldRewriteOnlyTheClosedFileAHitCorrectionTouches() {
    DeltaTable table = threeGenerations(3);
    Path untouched = closedFileWith(table, 10);
    Version corrected = version(2, 0, 10L, "g0-corrected");
    CommitResult r = table.newCommit(Operation.MERGE)
        .apply(List.of(new VersionChange.Upsert(corrected, ChangeKind.CORRECT),
        new VersionChange.Retraction(BusinessKey.of(3L), at(0))));
    assertThat(r.rowsUpdated()).isEqualTo(1);
    assertThat(r.rowsDeleted()).isEqualTo(1);
    assertThat(r.filesRemoved()).isEqualTo(1);
    assertThat(Files.exists(untouched)).isTrue();
    assertThat(table.latest().state.adds.values()).extracting(AddFile::path)
        .anyMatch(p -> untouched.endsWith(p));
    List<Version> expected = new ArrayList<>(scan(table.snapshotAt(3)));
    expected.removeIf(v -> v.key().equals(BusinessKey.of(3L)) && v.validFrom().equals(at(0)));
    expected.replaceAll(v -> v.key().equals(BusinessKey.of(2L)) && v.validFrom().equals(at(0)) ? corrected : v);
    assertThat(scan(table.latest())).isEqualTo(sorted(expected));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(expected));
  }

  @Test
  void shouldApplyTheLastChangePerIdentityWithinOneBatch() {
    DeltaTable table = DeltaTable.create(dir, customers(), Map.of());
    CommitResult r = table.newCommit(Operation.MERGE)
        .apply(upserts(version(1, 0, null, "first"), version(1, 0, null, "second"),
        version(1, 0, 3L, "third")));
    assertThat(r.rowsInserted()).isEqualTo(1);
    assertThat(scan(table.latest())).containsExactly(version(1, 0, 3L, "third"));
  }

  @Test
  void shouldMergeSmallClosedFilesWithoutChangingRows() {
    // the closed-file merge alone; on a merge-on-read table optimize compacts current files too (MergeOnReadTest)
    DeltaTable table = threeGenerations(4, Map.of("dimstream.buckets", "2", "delta.enableDeletionVectors", "false"));
    table.newCommit(Operation.MERGE).apply(upserts(version(7, 0, 1L, "x"), version(7, 1, null, "y")));
    Snapshot before = table.latest();
    long closedBefore = before.state.adds.values().stream().filter(a -> !before.isCurrentFile(a)).count();
    OptimizeResult r = table.optimize();
    assertThat(r.committed()).isTrue();
    assertThat(r.filesRemoved()).isEqualTo((int) closedBefore);
    assertThat(r.filesAdded()).isEqualTo(1);
    Snapshot after = table.latest();
    assertThat(scan(after)).isEqualTo(scan(before));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(scan(before));
    assertThat(table.history().get(0).operation()).isEqualTo("OPTIMIZE");
    assertThat(table.history().get(0).operationMetrics()).containsEntry("numRemovedFiles", Long.toString(closedBefore));
    assertThat(after.state.adds.values()).filteredOn(a -> !after.isCurrentFile(a))
        .allMatch(a -> !a.dataChange());
    assertThat(table.optimize().committed()).isFalse();
  }

  @Test
  void shouldClusterClosedVersionsByKeySoALookupReadsOneFilePerGroup() {
    DeltaTable table = DeltaTable.create(dir, customers(), Map.of("dimstream.targetFileRows", "40"));
    java.util.Random rnd = new java.util.Random(11);
    long[] from = new long[300];
    // As the compactor writes: every commit closes versions of keys spread over the whole key range.
    for (int commit = 0; commit < 30; commit++) {
      List<Version> batch = new ArrayList<>();
      for (long k : rnd.longs(12, 1, 300).distinct().toArray()) {
        batch.add(version(k, from[(int) k], from[(int) k] + 1, "c" + commit));
        from[(int) k] += 1;
      }
      table.newCommit(Operation.MERGE).apply(upserts(batch.toArray(Version[]::new)));
    }
    Snapshot before = table.latest();
    int groups = (int) Math.ceil(before.rowCount() / 400.0);
    assertThat(maxClosedFilesPerKey(table, before)).isGreaterThan(groups);

    assertThat(table.optimize().committed()).isTrue();
    Snapshot after = table.latest();
    assertThat(maxClosedFilesPerKey(table, after)).isLessThanOrEqualTo(groups);
    assertThat(scan(after)).isEqualTo(scan(before));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(scan(before));
  }

  /** The most closed files whose key statistics may hold one key: what a key lookup must read. */
  private static long maxClosedFilesPerKey(DeltaTable table, Snapshot s) {
    long worst = 0;
    for (long k = 1; k < 300; k++) {
      BusinessKey key = BusinessKey.of(k);
      long n = s.state.adds.values().stream().filter(a -> !s.isCurrentFile(a))
          .filter(a -> table.stats(a, s.layout).mayContainKey(key)).count();
      worst = Math.max(worst, n);
    }
    return worst;
  }

  @Test
  void shouldAddANullableColumnAndRejectATypeChange() {
    DeltaTable.create(dir, customers(), Map.of()).newCommit(Operation.WRITE).apply(upserts(version(1, 0, null, "ann")));
    DimensionSpec wider = DimensionSpec.builder("customers")
        .column("customer_id", "long").column("name", "string").column("tier", "int")
        .column("balance", "decimal(12,2)").column("since", "date").column("updated_at", "timestamp")
        .column("op", "string").column("email", "string")
        .key("customer_id").sequence("updated_at").trackExcept(List.of("balance"))
        .delete(new io.dimstream.spec.DeleteRule.ColumnEquals("op", "d")).build();
    DeltaTable table = DeltaTable.openOrCreate(dir, wider);
    assertThat(table.latest().version()).isEqualTo(2);
    assertThat(table.history().get(0).operation()).isEqualTo("ADD COLUMNS");
    assertThat(table.spec().attributeColumns()).extracting(io.dimstream.types.Column::name).contains("email");
    Version withEmail = new Version(BusinessKey.of(2L), at(0), null,
        Arrays.asList("bob", 1, new BigDecimal("1.00"), LocalDate.of(2020, 1, 1), "bob@example.com"));
    table.newCommit(Operation.MERGE).apply(upserts(withEmail));
    Version oldRow = version(1, 0, null, "ann");
    List<Object> oldAttrs = new ArrayList<>(oldRow.attributes());
    oldAttrs.add(null);
    List<Version> expected = sorted(List.of(oldRow.withAttributes(oldAttrs), withEmail));
    assertThat(scan(table.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, wider))).isEqualTo(expected);
    assertThat(DeltaTable.openOrCreate(dir, wider).latest().version()).isEqualTo(3);

    DimensionSpec changedType = DimensionSpec.builder("customers")
        .column("customer_id", "long").column("name", "string").column("tier", "string")
        .column("balance", "decimal(12,2)").column("since", "date").column("updated_at", "timestamp")
        .column("email", "string").key("customer_id").sequence("updated_at").build();
    assertThatThrownBy(() -> DeltaTable.openOrCreate(dir, changedType))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("'columns.tier'").hasMessageContaining("string in the spec but int in the table")
        .hasMessageContaining("Fix:");
    DimensionSpec dropped = DimensionSpec.builder("customers")
        .column("customer_id", "long").column("name", "string").column("updated_at", "timestamp")
        .key("customer_id").sequence("updated_at").build();
    assertThatThrownBy(() -> DeltaTable.openOrCreate(dir, dropped))
        .isInstanceOf(TableException.class).hasMessageContaining("column 'tier'").hasMessageContaining("dropping");
  }

  @Test
  void shouldRoundTripCompositeKeysAndSequencesOfEveryTypeThroughKernel() {
    DimensionSpec spec = DimensionSpec.builder("accounts")
        .column("region", "string").column("acct", "int").column("day", "date").column("lsn", "long")
        .column("amount", "double").column("active", "boolean").column("opened", "timestamp")
        .column("limit", "decimal(38,6)")
        .key("region", "acct").sequence("day", "lsn").build();
    DeltaTable table = DeltaTable.create(dir, spec, Map.of("dimstream.codec", "snappy"));
    long day = LocalDate.of(2024, 5, 1).toEpochDay();
    Version a1 = new Version(BusinessKey.of("eu-west/ü", 7), Sequence.of(day, 5), Sequence.of(day, 9),
        Arrays.asList(1.5, true, java.time.Instant.parse("2024-05-01T10:15:30.123456Z"),
            new BigDecimal("12345678901234567890.123456")));
    Version a2 = new Version(BusinessKey.of("eu-west/ü", 7), Sequence.of(day, 9), null,
        Arrays.asList(null, null, null, null));
    Version b = new Version(BusinessKey.of("us", -1), Sequence.of(day - 3, 0), null,
        Arrays.asList(-0.25, false, java.time.Instant.parse("1969-12-31T23:59:59.999999Z"), new BigDecimal("-1.000000")));
    table.newCommit(Operation.WRITE).apply(upserts(a1, a2, b));
    List<Version> expected = sorted(List.of(a1, a2, b));
    assertThat(scan(table.latest())).isEqualTo(expected);
    assertThat(scan(DeltaTable.open(dir).latest())).isEqualTo(expected);
    assertThat(DeltaTable.open(dir).spec().sequence()).containsExactly("day", "lsn");
    assertThat(sorted(KernelReader.latest(dir, spec))).isEqualTo(expected);
    assertThat(KernelReader.rows(io.delta.kernel.Table.forPath(
            io.delta.kernel.defaults.engine.DefaultEngine.create(new org.apache.hadoop.conf.Configuration()),
            dir.toString()).getLatestSnapshot(
            io.delta.kernel.defaults.engine.DefaultEngine.create(new org.apache.hadoop.conf.Configuration()))).get(0))
        .containsKeys("valid_from", "valid_from_lsn", "valid_to", "valid_to_lsn", "is_current");
    // composite as-of: (day, 7) is inside [ (day,5), (day,9) )
    assertThat(rows(table.latest().asOf(Sequence.of(day, 7)))).containsExactly(a1, b);
    assertThat(rows(table.latest().asOf(Sequence.of(day, 9)))).containsExactly(a2, b);
    assertThat(table.latest().history(BusinessKey.of("eu-west/ü", 7))).containsExactly(a1, a2);
  }

  @Test
  void shouldMergeABucketFileThatIsNotInIdentityOrderWithoutLosingOrDuplicatingVersions() {
    DeltaTable table = DeltaTable.create(dir, customers(), Map.of("dimstream.buckets", "1"));
    table.newCommit(Operation.WRITE)
        .apply(upserts(version(1, 0, null, "a"), version(2, 0, null, "b"), version(3, 0, null, "c"),
        version(4, 0, null, "d")));
    // another writer replaced the bucket file with one of the same name pattern, its rows in reverse order
    Snapshot s = table.latest();
    List<Version> reversed = new ArrayList<>(scan(s));
    java.util.Collections.reverse(reversed);
    AddFile unsorted = DataFiles.write(dir, "is_current=true/bucket-00000-of-00001-foreign.zstd.parquet", reversed,
        s.layout, true, org.apache.parquet.hadoop.metadata.CompressionCodecName.ZSTD);
    List<Action> actions = new ArrayList<>();
    s.state.adds.values().forEach(a -> actions.add(a.remove(System.currentTimeMillis(), false)));
    actions.add(unsorted.withDataChange(false));
    table.writer().write(s.version() + 1, actions, table.writer().timestampAfter(s.state), List.of(), s.state);

    List<VersionChange> batch = new ArrayList<>(upserts(version(4, 0, 5L, "d"), version(4, 5, null, "d2"),
        version(0, 5, null, "new")));
    batch.add(retract(2, 0));
    CommitResult r = table.newCommit(Operation.MERGE).apply(batch);

    List<Version> expected = sorted(List.of(version(0, 5, null, "new"), version(1, 0, null, "a"),
        version(3, 0, null, "c"), version(4, 0, 5L, "d"), version(4, 5, null, "d2")));
    assertThat(scan(table.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
    assertThat(r.rowsInserted()).isEqualTo(2);
    assertThat(r.rowsUpdated()).isEqualTo(1);
    assertThat(r.rowsDeleted()).isEqualTo(1);
  }

  @Test
  void shouldKeepEveryKeyWhenRebucketingFilesAnotherEngineLeftAndOneKeyChanges() {
    DeltaTable table = DeltaTable.create(dir, customers(), Map.of("dimstream.buckets", "4"));
    List<Version> initial = new ArrayList<>();
    for (long k = 1; k <= 20; k++) {
      initial.add(version(k, 0, null, "v" + k));
    }
    table.newCommit(Operation.WRITE).apply(upserts(initial.toArray(Version[]::new)));
    Snapshot s = table.latest();
    AddFile foreign = DataFiles.write(dir, "is_current=true/part-00000-spark.snappy.parquet", scan(s), s.layout, true,
        org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY);
    List<Action> actions = new ArrayList<>();
    s.state.adds.values().forEach(a -> actions.add(a.remove(System.currentTimeMillis(), false)));
    actions.add(foreign.withDataChange(false));
    table.writer().write(s.version() + 1, actions, table.writer().timestampAfter(s.state), List.of(), s.state);

    table.newCommit(Operation.MERGE).apply(upserts(version(1, 0, 5L, "v1"), version(1, 5, null, "v1b")));

    List<Version> expected = new ArrayList<>(initial.subList(1, initial.size()));
    expected.add(version(1, 0, 5L, "v1"));
    expected.add(version(1, 5, null, "v1b"));
    assertThat(scan(table.latest())).isEqualTo(sorted(expected));
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(sorted(expected));
  }

  @Test
  void shouldRebucketCurrentFilesItDidNotNameWithoutDuplicatingVersions() {
    // re-bucketing is what copy-on-write does; merge-on-read keeps the foreign file and marks rows in it
    DeltaTable table = DeltaTable.create(dir, customers(), Map.of("dimstream.buckets", "4",
        "delta.enableDeletionVectors", "false"));
    table.newCommit(Operation.WRITE).apply(upserts(version(1, 0, null, "a"), version(2, 0, null, "b")));
    // another engine (say Spark OPTIMIZE) rewrote the current partition into one file with its own name
    Snapshot s = table.latest();
    List<Version> current = scan(s);
    AddFile foreign = DataFiles.write(dir, "is_current=true/part-00000-spark.snappy.parquet", current, s.layout, true,
        org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY);
    List<Action> actions = new ArrayList<>();
    s.state.adds.values().forEach(a -> actions.add(a.remove(System.currentTimeMillis(), false)));
    actions.add(foreign.withDataChange(false));
    table.writer().write(s.version() + 1, actions, table.writer().timestampAfter(s.state), List.of(), s.state);
    assertThat(scan(table.latest())).isEqualTo(current);

    table.newCommit(Operation.MERGE).apply(upserts(version(1, 0, 5L, "a"), version(1, 5, null, "a2")));
    List<Version> expected = sorted(List.of(version(1, 0, 5L, "a"), version(1, 5, null, "a2"),
        version(2, 0, null, "b")));
    assertThat(scan(table.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
    assertThat(table.latest().history(BusinessKey.of(2L))).containsExactly(version(2, 0, null, "b"));
    assertThat(table.latest().state.adds.keySet()).noneMatch(p -> p.contains("spark"));
  }

  @Test
  void shouldRejectAChangeThatDoesNotFitTheTable() {
    DeltaTable table = DeltaTable.create(dir, customers(), Map.of());
    Version bad = new Version(BusinessKey.of(1L), at(0), null, List.of("only-one-attribute"));
    assertThatThrownBy(() -> table.newCommit(Operation.MERGE).apply(upserts(bad)))
        .isInstanceOf(TableException.class).hasMessageContaining("has 1 attributes but the table has 4");
    assertThat(table.latest().version()).isZero();
  }
}
