package io.dimstream.interop;

import static io.dimstream.interop.SparkBackfillIT.backfill;
import static io.dimstream.interop.SparkBackfillIT.stream;
import static io.dimstream.interop.SparkChecks.assertReads;
import static io.dimstream.interop.SparkChecks.delta;
import static io.dimstream.interop.SparkChecks.sorted;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.cli.Main;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.types.ColumnValues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The other ways dimstream writes a table, each read by Spark 4.0 + Delta 4.0 and compared with the reference fold:
 * {@code history: scd1} with and without {@code soft_delete}, {@code output.version_id}, a widened column,
 * {@code table upgrade}, {@code table optimize}, {@code table vacuum} and {@code apply-snapshot}.
 */
class SparkPathsIT {
  private static final ObjectMapper JSON = new ObjectMapper();

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

  /**
   * A snapshot is a set of events at its sequence: each row an upsert, each open key it leaves out a delete. So the
   * table after {@code apply-snapshot} equals the reference fold of the backfilled events plus those.
   */
  @Test
  void shouldReadATableAfterASnapshotWasAppliedEqualToTheFoldOfItsEvents() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_spark_snapshot", "");
    ChangeStreams.GeneratedStream stream = stream(spec, 56L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table);
    long backfilled = DeltaTable.open(table).latest().version();

    Instant at = Instant.parse("2030-01-01T00:00:00Z");
    Sequence atSequence = Sequence.of(ColumnValues.sequenceLong(at, spec.sequenceColumns().get(0).type()));
    List<String> names = spec.attributeColumns().stream().map(c -> c.name()).toList();
    int city = names.indexOf("city");
    // a full export: every other current key with all its columns, the city changed for one in three; the rest left out
    List<String> snapshot = new ArrayList<>();
    List<ChangeEvent> events = new ArrayList<>(stream.events());
    int i = 0;
    int changed = 0;
    for (Version v : Scd2Fold.fold(spec, stream.events())) {
      if (!v.isCurrent()) {
        continue;
      }
      if (i++ % 2 != 0) {
        events.add(ChangeEvent.delete(v.key(), atSequence));
        continue;
      }
      List<Object> attributes = new ArrayList<>(v.attributes());
      if (i % 3 == 0) {
        attributes.set(city, "Snapshot City");
        changed++;
      }
      ObjectNode row = JSON.createObjectNode();
      row.put(spec.keyColumns().get(0).name(), (Long) v.key().values().get(0));
      for (int a = 0; a < names.size(); a++) {
        row.put(names.get(a), (String) attributes.get(a));
      }
      snapshot.add(JSON.writeValueAsString(row));
      events.add(ChangeEvent.upsert(v.key(), atSequence, attributes));
    }
    assertThat(changed).isPositive();
    assertThat(snapshot.size()).isLessThan(i);
    Path input = Files.write(dir.resolve("snapshot.jsonl"), snapshot);
    assertThat(Main.commandLine().execute("apply-snapshot", "--config", spec.source().toString(), "--table",
        table.toString(), "--input", input.toString(), "--at", at.toString())).isZero();

    assertThat(DeltaTable.open(table).latest().version()).isEqualTo(backfilled + 1);
    assertReads(table, spec, Scd2Fold.fold(spec, events), backfilled);
  }
}
