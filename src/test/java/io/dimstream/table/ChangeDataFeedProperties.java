package io.dimstream.table;

import static io.dimstream.table.Versions.at;
import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.table.TableModelProperties.Change;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddCDCFile;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.files.PlainCodecFactory;
import io.dimstream.table.internal.files.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;

/**
 * With the change data feed on, the change rows of every commit are the difference of the table before and after it:
 * the {@code update_preimage} and {@code delete} rows are the rows it removed, the {@code update_postimage} and
 * {@code insert} rows the rows it added; a commit without change data only adds rows; compaction changes no row and
 * writes none. Any batches of upserts and retractions, merge-on-read or copy-on-write.
 */
class ChangeDataFeedProperties {
  record ChangeRow(Version version, String type) {}

  @Test
  void changeRowsOfEveryCommitAreTheDifferenceOfTheTableBeforeAndAfter() {
    qt().withExamples(30).withShrinkCycles(50)
        .forAll(TableModelProperties.batches(), TableModelProperties.bucketCounts(), booleans().all())
        .checkAssert((batches, buckets, deletionVectors) -> {
          try {
            check(batches, buckets, deletionVectors);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static void check(List<List<Change>> batches, int buckets, boolean deletionVectors) throws IOException {
    Path dir = Files.createTempDirectory("table-cdf");
    try {
      DeltaTable table = DeltaTable.create(dir, customers(),
          Map.of("dimstream.buckets", Integer.toString(buckets), "delta.checkpointInterval", "2",
              "delta.enableDeletionVectors", Boolean.toString(deletionVectors), "delta.enableChangeDataFeed", "true"));
      TableLayout layout = new TableLayout(customers());
      long txn = 0;
      for (List<Change> batch : batches) {
        List<VersionChange> changes = new ArrayList<>();
        for (Change c : batch) {
          if (c.retract()) {
            changes.add(new VersionChange.Retraction(BusinessKey.of(c.key()), at(c.fromHour())));
          } else {
            changes.add(new VersionChange.Upsert(Versions.version(c.key(), c.fromHour(), c.toHour(), c.name()),
                ChangeKind.CORRECT));
          }
        }
        long from = table.latest().version();
        table.newCommit(Operation.MERGE).txns(Map.of("app", ++txn)).apply(changes);
        if (deletionVectors && txn % 2 == 0) {
          table.newCompaction().runFull();
        }
        for (long v = from + 1; v <= table.latest().version(); v++) {
          checkCommit(dir, table, layout, v);
        }
      }
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void checkCommit(Path dir, DeltaTable table, TableLayout layout, long version) throws IOException {
    List<Version> before = scan(table.snapshotAt(version - 1));
    List<Version> after = scan(table.snapshotAt(version));
    List<Version> removed = minus(before, after);
    List<Version> added = minus(after, before);
    List<Action> actions = commit(dir, version);
    List<AddCDCFile> cdc = actions.stream().filter(a -> a instanceof AddCDCFile).map(a -> (AddCDCFile) a).toList();
    boolean dataChange = actions.stream().anyMatch(a -> a instanceof AddFile f && f.dataChange()
        || a instanceof RemoveFile r && r.dataChange());
    if (!dataChange) {
      // compaction, checkpoint-only and marker-only commits: no row changed and no change data
      assertThat(cdc).as("change data of version %d, which changes no data", version).isEmpty();
      assertThat(after).isEqualTo(before);
      return;
    }
    if (cdc.isEmpty()) {
      // readers take the adds of a commit without change data as its inserts: it may remove nothing
      assertThat(actions).as("version %d has no change data", version)
          .noneMatch(a -> a instanceof RemoveFile r && r.dataChange());
      assertThat(removed).isEmpty();
      List<Version> addedRows = new ArrayList<>();
      for (Action a : actions) {
        if (a instanceof AddFile f && f.dataChange()) {
          addedRows.addAll(read(dir.resolve(f.path()), layout, r -> null).stream().map(ChangeRow::version).toList());
        }
      }
      assertThat(sorted(addedRows)).isEqualTo(added);
      return;
    }
    List<ChangeRow> rows = new ArrayList<>();
    for (AddCDCFile f : cdc) {
      assertThat(f.path()).startsWith("_change_data/");
      List<ChangeRow> in = read(dir.resolve(f.path()), layout, r -> Objects.toString(r.get("_change_type")));
      for (ChangeRow r : in) {
        assertThat(f.partitionValues()).isEqualTo(Map.of("is_current", Boolean.toString(r.version().isCurrent())));
      }
      rows.addAll(in);
    }
    assertThat(sorted(of(rows, "update_preimage", "delete"))).as("rows removed by version %d", version)
        .isEqualTo(removed);
    assertThat(sorted(of(rows, "update_postimage", "insert"))).as("rows added by version %d", version)
        .isEqualTo(added);
    assertThat(ids(of(rows, "update_preimage"))).isEqualTo(ids(of(rows, "update_postimage")));
    assertThat(ids(of(rows, "insert"))).doesNotContainAnyElementsOf(ids(before));
    assertThat(ids(of(rows, "delete"))).doesNotContainAnyElementsOf(ids(after));
    assertThat(rows).extracting(ChangeRow::type)
        .allMatch(t -> Set.of("insert", "delete", "update_preimage", "update_postimage").contains(t));
  }

  /** The change rows the {@code cdc} actions of commit {@code version} point to; empty when it has none. */
  static List<ChangeRow> changeRows(Path dir, TableLayout layout, long version) throws IOException {
    List<ChangeRow> rows = new ArrayList<>();
    for (Action a : commit(dir, version)) {
      if (a instanceof AddCDCFile f) {
        rows.addAll(read(dir.resolve(f.path()), layout, r -> Objects.toString(r.get("_change_type"))));
      }
    }
    return rows;
  }

  static List<Version> of(List<ChangeRow> rows, String... types) {
    Set<String> wanted = Set.of(types);
    return rows.stream().filter(r -> wanted.contains(r.type())).map(ChangeRow::version).toList();
  }

  private static Set<VersionId> ids(List<Version> rows) {
    Set<VersionId> out = new HashSet<>();
    rows.forEach(v -> out.add(VersionId.of(v)));
    return out;
  }

  /** {@code a} without the rows of {@code b} (each row of the table once: versions are unique by identity). */
  private static List<Version> minus(List<Version> a, List<Version> b) {
    Set<Version> drop = new HashSet<>(b);
    return sorted(a.stream().filter(v -> !drop.contains(v)).toList());
  }

  static List<Action> commit(Path dir, long version) throws IOException {
    List<Action> out = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("_delta_log").resolve(String.format("%020d.json", version)))) {
      Action a = ActionCodec.fromJson(line);
      if (a != null) {
        out.add(a);
      }
    }
    return out;
  }

  /** The rows of a Parquet file as versions, with {@code type} of each record. */
  private static List<ChangeRow> read(Path file, TableLayout layout, Function<GenericRecord, String> type)
      throws IOException {
    List<ChangeRow> out = new ArrayList<>();
    try (ParquetReader<GenericRecord> r = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file),
        new PlainParquetConfiguration()).withDataModel(GenericData.get())
        .withCodecFactory(PlainCodecFactory.INSTANCE).build()) {
      Function<GenericRecord, Version> decoder = null;
      for (GenericRecord rec = r.read(); rec != null; rec = r.read()) {
        if (decoder == null) {
          decoder = layout.decoder(rec.getSchema());
        }
        out.add(new ChangeRow(decoder.apply(rec), type.apply(rec)));
      }
    }
    return out;
  }
}
