package io.dimstream.interop;

import static io.dimstream.interop.SparkBackfillIT.backfill;
import static io.dimstream.interop.SparkBackfillIT.stream;
import static io.dimstream.interop.SparkChecks.assertReads;
import static io.dimstream.interop.SparkChecks.delta;
import static io.dimstream.interop.SparkChecks.sorted;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.cli.Main;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The other ways dimstream writes a table, each read by Spark 4.0 + Delta 4.0 and compared with the reference fold:
 * {@code history: scd1} with and without {@code soft_delete}, {@code output.version_id}, a widened column,
 * {@code table upgrade}, {@code table optimize}, {@code table vacuum} and {@code apply-snapshot}.
 */
class SparkPathsIT {
  @TempDir
  Path dir;

  private DimensionSpec scd1(boolean softDelete) throws Exception {
    String yaml = Files.readString(Path.of("examples/customers-scd1.yaml"))
        .replace("soft_delete: false", "soft_delete: " + softDelete)
        + "\nservice:\n  data_dir: " + dir.resolve("data") + "\n  table_path: " + dir.resolve("table") + "\n";
    return DimensionSpecLoader.load(Files.writeString(dir.resolve("scd1-" + softDelete + ".yaml"), yaml));
  }

  private void assertScd1(boolean softDelete) throws Exception {
    DimensionSpec spec = scd1(softDelete);
    ChangeStreams.GeneratedStream stream = stream(spec, softDelete ? 51L : 52L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table);

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertThat(expected.stream().anyMatch(v -> !v.isCurrent())).as("closed rows of soft deletes")
        .isEqualTo(softDelete);
    assertReads(table, spec, expected, 0);
  }

  @Test
  void shouldReadAnScd1Table() throws Exception {
    assertScd1(false);
  }

  @Test
  void shouldReadAnScd1TableWithSoftDeletes() throws Exception {
    assertScd1(true);
  }

  @Test
  void shouldReadTheVersionIdColumn() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_spark_ids", "", "output: {version_id: version_id}\n");
    ChangeStreams.GeneratedStream stream = stream(spec, 53L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table);

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertReads(table, spec, expected, 0);
    List<JsonNode> ids = SparkProcess.shared().sql("SELECT version_id FROM " + delta(table));
    assertThat(ids).hasSize(expected.size()).allMatch(r -> r.path("version_id").isIntegralNumber());
    assertThat(ids.stream().map(r -> r.path("version_id").asLong()).distinct().count()).isEqualTo(expected.size());
  }

  @Test
  void shouldReadAWidenedColumn() throws Exception {
    String yaml = """
        name: visits_spark
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
    ChangeStreams.GeneratedStream stream = stream(narrow, 54L);
    backfill(narrow, stream.jsonLines(), dir.resolve("changes.jsonl"), table);
    long beforeWidening = DeltaTable.open(table).latest().version();

    DeltaTable.openOrCreate(table, wide);

    int visits = wide.attributeColumns().stream().map(c -> c.name()).toList().indexOf("visits");
    List<Version> expected = new ArrayList<>();
    for (Version v : Scd2Fold.fold(narrow, stream.events())) {
      List<Object> attrs = new ArrayList<>(v.attributes());
      attrs.set(visits, attrs.get(visits) == null ? null : ((Integer) attrs.get(visits)).longValue());
      expected.add(v.withAttributes(attrs));
    }
    assertThat(DeltaTable.open(table).properties()).containsEntry("delta.enableTypeWidening", "true");
    assertReads(table, wide, expected, beforeWidening + 1);
    List<Version> narrowRows = SparkRows.versions(SparkProcess.shared().sql("SELECT * FROM " + delta(table)
        + " VERSION AS OF " + beforeWidening), narrow);
    assertThat(narrowRows).as("time travel to before the widening reads the int column")
        .containsExactlyElementsOf(sorted(Scd2Fold.fold(narrow, stream.events())));
  }

  @Test
  void shouldReadACopyOnWriteTableUpgradedToDeletionVectorsThenOptimizedAndVacuumed() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_spark_upgrade", "",
        "output: {table_properties: {delta.enableDeletionVectors: \"false\"}}\n");
    ChangeStreams.GeneratedStream stream = stream(spec, 55L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table);
    List<Version> expected = Scd2Fold.fold(spec, stream.events());

    assertThat(Main.commandLine().execute("table", "upgrade", "--table", table.toString(), "--deletion-vectors"))
        .isZero();
    assertThat(DeltaTable.open(table).mergeOnRead()).isTrue();
    assertReads(table, spec, expected, 1);

    assertThat(Main.commandLine().execute("table", "optimize", "--table", table.toString())).isZero();
    long optimized = DeltaTable.open(table).latest().version();
    assertThat(Main.commandLine().execute("table", "vacuum", "--table", table.toString(), "--retain", "0s"))
        .isZero();
    assertThat(DeltaTable.open(table).history()).extracting(c -> c.operation())
        .contains("OPTIMIZE", "VACUUM START", "VACUUM END");
    assertReads(table, spec, expected, optimized);
  }

  @Test
  void shouldReadATableAfterASnapshotWasApplied() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_spark_snapshot", "");
    ChangeStreams.GeneratedStream stream = stream(spec, 56L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table);
    // the snapshot: every other current key, with its city changed for one in three; the rest is missing
    List<String> snapshot = new ArrayList<>();
    int i = 0;
    for (Version v : Scd2Fold.fold(spec, stream.events())) {
      if (v.isCurrent() && i++ % 2 == 0) {
        snapshot.add("{\"customer_id\": " + v.key().values().get(0) + ", \"city\": \""
            + (i % 3 == 0 ? "Snapshot City" : v.attributes().get(spec.attributeColumns().stream()
                .map(c -> c.name()).toList().indexOf("city"))) + "\", \"tier\": \"gold\"}");
      }
    }
    Path input = Files.write(dir.resolve("snapshot.jsonl"), snapshot);
    assertThat(Main.commandLine().execute("apply-snapshot", "--config", spec.source().toString(), "--table",
        table.toString(), "--input", input.toString(), "--at", "2030-01-01T00:00:00Z")).isZero();

    // three readers agree: Spark, Delta Kernel and dimstream's own scan
    List<Version> ours;
    try (Stream<Version> rows = DeltaTable.open(table).latest().scan()) {
      ours = sorted(rows.toList());
    }
    assertThat(ours).isNotEqualTo(sorted(KernelReader.atVersion(table, spec, 1)));
    assertThat(sorted(KernelReader.latest(table, spec))).isEqualTo(ours);
    assertReads(table, spec, ours, 1);
  }
}
