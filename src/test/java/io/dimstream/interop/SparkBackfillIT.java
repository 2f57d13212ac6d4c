package io.dimstream.interop;

import static io.dimstream.interop.SparkChecks.assertReads;
import static io.dimstream.interop.SparkChecks.delta;
import static io.dimstream.interop.SparkChecks.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.cli.Main;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.PreviousRelease;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tables written by {@code backfill} open in Spark 4.0 + Delta 4.0 and equal the reference fold. */
class SparkBackfillIT {
  @TempDir
  Path dir;

  static ChangeStreams.GeneratedStream stream(DimensionSpec spec, long seed) {
    return ChangeStreams.random(spec, seed).keys(300).events(3_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
  }

  static void backfill(DimensionSpec spec, List<String> lines, Path input, Path table) throws Exception {
    Files.write(input, lines, StandardCharsets.UTF_8);
    int code = Main.commandLine().execute("backfill", "--config", spec.source().toString(), "--input",
        input.toString(), "--table", table.toString());
    assertThat(code).as("backfill exit code").isZero();
  }

  @Test
  void shouldReadAMergeOnReadBackfillInSpark() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_spark_mor", "");
    ChangeStreams.GeneratedStream stream = stream(spec, 41L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table);

    assertThat(DeltaTable.open(table).mergeOnRead()).isTrue();
    assertReads(table, spec, Scd2Fold.fold(spec, stream.events()), 0);
  }

  @Test
  void shouldReadACopyOnWriteBackfillInSpark() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_spark_cow", "",
        "output: {table_properties: {delta.enableDeletionVectors: \"false\"}}\n");
    ChangeStreams.GeneratedStream stream = stream(spec, 42L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table);

    DeltaTable t = DeltaTable.open(table);
    assertThat(t.mergeOnRead()).isFalse();
    assertThat(io.dimstream.table.Protocols.latest(t).minWriterVersion()).isEqualTo(2);
    assertReads(table, spec, Scd2Fold.fold(spec, stream.events()), 0);
  }

  /** The bug this suite exists for: Spark refuses the previous release's protocol; the next write repairs it. */
  @Test
  void shouldBeRefusedOnThePreviousReleasesProtocolAndOpenAfterTheNextWrite() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_spark_old", "");
    ChangeStreams.GeneratedStream stream = stream(spec, 43L);
    Path table = dir.resolve("table");
    backfill(spec, stream.jsonLines(), dir.resolve("changes.jsonl"), table);
    PreviousRelease.rewriteProtocol(table);

    assertThatThrownBy(() -> read(table, spec))
        .isInstanceOf(SparkProcess.SparkError.class)
        .hasMessageContaining("DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH")
        .hasMessageContaining("invariants");

    int code = Main.commandLine().execute("table", "optimize", "--table", table.toString());
    assertThat(code).isZero();

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertThat(read(table, spec)).containsExactlyElementsOf(SparkChecks.sorted(expected));
    // time travel reaches back to the repair (version 2): older versions keep the protocol Spark refuses
    assertReads(table, spec, expected, 2);
    assertThatThrownBy(() -> SparkProcess.shared().sql("SELECT * FROM " + delta(table) + " VERSION AS OF 1"))
        .hasMessageContaining("DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH");
    assertThat(SparkProcess.shared().sql("DESCRIBE HISTORY " + delta(table)))
        .extracting(h -> h.path("operation").asText()).contains("UPGRADE PROTOCOL");
  }
}
