package io.dimstream.trino;

import static io.dimstream.trino.TrinoChecks.location;
import static io.dimstream.trino.TrinoChecks.register;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.cli.Main;
import io.dimstream.history.Scd2Fold;
import io.dimstream.interop.SparkChecks;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.table.Protocols;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.types.ColumnValues;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tables the batch paths and table commands write, read by a real Trino 476 (Delta Lake connector, file
 * metastore) over JDBC and compared with the reference fold: a merge-on-read and a copy-on-write {@code backfill},
 * {@code history: scd1} with and without soft deletes, {@code output.version_id}, a widened column, a copy-on-write
 * table after {@code table upgrade --deletion-vectors}, {@code table optimize} and {@code table vacuum}, and
 * {@code apply-snapshot}.
 */
class TrinoPathsIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  static ChangeStreams.GeneratedStream stream(DimensionSpec spec, long seed) {
    return ChangeStreams.random(spec, seed).keys(300).events(3_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
  }

  static void backfill(DimensionSpec spec, List<String> lines, Path input, String table) throws Exception {
    Files.write(input, lines, StandardCharsets.UTF_8);
    int code = Main.commandLine().execute("backfill", "--config", spec.source().toString(), "--input",
        input.toString(), "--table", table);
    assertThat(code).as("backfill exit code").isZero();
  }

  /**
   * Registers the local table in Trino and checks every read against {@code expected}, time travel to
   * {@code earlier}; returns the table's name in Trino.
   */
  private static String assertTrinoReads(Path table, DimensionSpec spec, List<Version> expected, long earlier) {
    TrinoServer trino = TrinoServer.shared();
    String name = register(trino, "delta", location(table));
    TrinoChecks.assertReads(trino, name, spec, expected, earlier, KernelReader.atVersion(table, spec, earlier),
        DeltaTable.open(table).history());
    return name;
  }

  @Test
  void shouldReadAMergeOnReadBackfillInTrino() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_trino_mor", "");
    ChangeStreams.GeneratedStream stream = stream(spec, 61L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table.toString());

    assertThat(DeltaTable.open(table).mergeOnRead()).isTrue();
    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertThat(expected).as("times below the millisecond, which Trino rounds")
        .anyMatch(v -> v.validFrom().first() % 1_000 != 0);
    assertTrinoReads(table, spec, expected, 0);
  }

  @Test
  void shouldReadACopyOnWriteBackfillInTrino() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_trino_cow", "",
        "output: {table_properties: {delta.enableDeletionVectors: \"false\"}}\n");
    ChangeStreams.GeneratedStream stream = stream(spec, 62L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table.toString());

    DeltaTable t = DeltaTable.open(table);
    assertThat(t.mergeOnRead()).isFalse();
    assertThat(Protocols.latest(t).minWriterVersion()).isEqualTo(2);
    assertTrinoReads(table, spec, Scd2Fold.fold(spec, stream.events()), 0);
  }

  private DimensionSpec scd1(boolean softDelete) throws Exception {
    String yaml = Files.readString(Path.of("examples/customers-scd1.yaml"))
        .replace("soft_delete: false", "soft_delete: " + softDelete)
        + "\nservice:\n  data_dir: " + dir.resolve("data") + "\n  table_path: " + dir.resolve("table") + "\n";
    return DimensionSpecLoader.load(Files.writeString(dir.resolve("scd1-" + softDelete + ".yaml"), yaml));
  }

  private void assertScd1(boolean softDelete) throws Exception {
    DimensionSpec spec = scd1(softDelete);
    ChangeStreams.GeneratedStream stream = stream(spec, softDelete ? 63L : 64L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table.toString());

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertThat(expected.stream().anyMatch(v -> !v.isCurrent())).as("closed rows of soft deletes")
        .isEqualTo(softDelete);
    assertTrinoReads(table, spec, expected, 0);
  }

  @Test
  void shouldReadAnScd1TableInTrino() throws Exception {
    assertScd1(false);
  }

  @Test
  void shouldReadAnScd1TableWithSoftDeletesInTrino() throws Exception {
    assertScd1(true);
  }

  /**
   * Trino 476 follows only the type changes {@code byte -> short -> int} of Delta's type widening: a column widened
   * from {@code int} to {@code long} is left out of the table (Trino skips a column whose type change it does not
   * support), and every other column reads as written. Time travel to before the widening reads the column.
   */
  @Test
  void shouldLeaveAColumnWidenedFromIntToLongOutOfTheTableInTrino() throws Exception {
    String yaml = """
        name: visits_trino
        columns: {customer_id: long, name: string, visits: %s, seq: long}
        key: [customer_id]
        sequence: [seq]
        service: {data_dir: %s, table_path: %s}
        """;
    Path table = dir.resolve("table");
    DimensionSpec narrow = DimensionSpecLoader.load(Files.writeString(dir.resolve("int.yaml"),
        yaml.formatted("int", dir.resolve("data"), table)));
    DimensionSpec wide = DimensionSpecLoader.load(Files.writeString(dir.resolve("long.yaml"),
        yaml.formatted("long", dir.resolve("data"), table)));
    ChangeStreams.GeneratedStream stream = stream(narrow, 65L);
    backfill(narrow, stream.jsonLines(), dir.resolve("changes.jsonl"), table.toString());
    long beforeWidening = DeltaTable.open(table).latest().version();

    DeltaTable.openOrCreate(table, wide);
    assertThat(DeltaTable.open(table).properties()).containsEntry("delta.enableTypeWidening", "true");

    TrinoServer trino = TrinoServer.shared();
    String name = register(trino, "delta", location(table));
    assertThat(TrinoRows.query(trino, "DESCRIBE " + name)).extracting(r -> r.get("Column"))
        .as("the columns Trino shows after the widening")
        .containsExactly("customer_id", "name", "valid_from", "valid_to", "is_current");

    int visits = wide.attributeColumns().stream().map(c -> c.name()).toList().indexOf("visits");
    List<Version> withoutVisits = new ArrayList<>();
    for (Version v : Scd2Fold.fold(narrow, stream.events())) {
      List<Object> attrs = new ArrayList<>(v.attributes());
      attrs.set(visits, null);
      withoutVisits.add(v.withAttributes(attrs));
    }
    TrinoChecks.assertReads(trino, name, wide, withoutVisits, beforeWidening + 1, withoutVisits,
        DeltaTable.open(table).history());
    List<Version> narrowRows = TrinoRows.versions(trino, "SELECT * FROM " + name + " FOR VERSION AS OF "
        + beforeWidening, narrow);
    assertThat(narrowRows).as("time travel to before the widening reads the int column")
        .containsExactlyElementsOf(SparkChecks.sorted(Scd2Fold.fold(narrow, stream.events())));
  }

  @Test
  void shouldReadACopyOnWriteTableUpgradedToDeletionVectorsThenOptimizedAndVacuumedInTrino() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_trino_upgrade", "",
        "output: {table_properties: {delta.enableDeletionVectors: \"false\"}}\n");
    ChangeStreams.GeneratedStream stream = stream(spec, 66L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table.toString());
    List<Version> expected = Scd2Fold.fold(spec, stream.events());

    assertThat(Main.commandLine().execute("table", "upgrade", "--table", table.toString(), "--deletion-vectors"))
        .isZero();
    assertThat(DeltaTable.open(table).mergeOnRead()).isTrue();
    long upgraded = DeltaTable.open(table).latest().version();
    assertTrinoReads(table, spec, expected, upgraded);

    assertThat(Main.commandLine().execute("table", "optimize", "--table", table.toString())).isZero();
    long optimized = DeltaTable.open(table).latest().version();
    assertThat(Main.commandLine().execute("table", "vacuum", "--table", table.toString(), "--retain", "0s"))
        .isZero();
    assertThat(DeltaTable.open(table).history()).extracting(c -> c.operation())
        .contains("OPTIMIZE", "VACUUM START", "VACUUM END");
    assertTrinoReads(table, spec, expected, optimized);
  }

  @Test
  void shouldReadTheVersionIdColumnInTrino() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_trino_ids", "", "output: {version_id: version_id}\n");
    ChangeStreams.GeneratedStream stream = stream(spec, 69L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table.toString());

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    String name = assertTrinoReads(table, spec, expected, 0);
    List<Map<String, Object>> ids = TrinoRows.query(TrinoServer.shared(), "SELECT version_id FROM " + name);
    assertThat(ids).hasSize(expected.size()).allMatch(r -> r.get("version_id") instanceof Long);
    assertThat(ids.stream().map(r -> r.get("version_id")).distinct().count()).as("one id per version")
        .isEqualTo(expected.size());
  }

  /**
   * {@code apply-snapshot} after a backfill: a snapshot's rows are upserts at its sequence and the open keys it
   * leaves out deletes, so Trino reads the reference fold of the backfilled events plus those.
   */
  @Test
  void shouldReadATableAfterASnapshotWasAppliedInTrino() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_trino_snapshot", "");
    ChangeStreams.GeneratedStream stream = stream(spec, 70L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table.toString());
    long backfilled = DeltaTable.open(table).latest().version();

    Instant at = Instant.parse("2031-06-01T00:00:00Z");
    Sequence atSequence = Sequence.of(ColumnValues.sequenceLong(at, spec.sequenceColumns().get(0).type()));
    List<String> names = spec.attributeColumns().stream().map(c -> c.name()).toList();
    int tier = names.indexOf("tier");
    List<ChangeEvent> events = new ArrayList<>(stream.events());
    List<String> snapshot = new ArrayList<>();
    int open = 0;
    for (Version v : Scd2Fold.fold(spec, stream.events())) {
      if (!v.isCurrent()) {
        continue;
      }
      open++;
      if (open % 3 == 0) {
        events.add(ChangeEvent.delete(v.key(), atSequence));
        continue;
      }
      List<Object> attributes = new ArrayList<>(v.attributes());
      if (open % 4 == 0) {
        attributes.set(tier, "snapshot-tier");
      }
      ObjectNode row = JSON.createObjectNode();
      row.put(spec.keyColumns().get(0).name(), (Long) v.key().values().get(0));
      for (int a = 0; a < names.size(); a++) {
        row.put(names.get(a), (String) attributes.get(a));
      }
      snapshot.add(JSON.writeValueAsString(row));
      events.add(ChangeEvent.upsert(v.key(), atSequence, attributes));
    }
    Path input = Files.write(dir.resolve("snapshot.jsonl"), snapshot);
    assertThat(Main.commandLine().execute("apply-snapshot", "--config", spec.source().toString(), "--table",
        table.toString(), "--input", input.toString(), "--at", at.toString())).isZero();

    assertThat(DeltaTable.open(table).latest().version()).isEqualTo(backfilled + 1);
    assertTrinoReads(table, spec, Scd2Fold.fold(spec, events), backfilled);
  }
}
