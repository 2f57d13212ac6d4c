package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.EventArchive;
import io.dimstream.table.KernelReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code dimstream apply-snapshot}: one full snapshot, one MERGE commit, read back by Kernel. */
class ApplySnapshotCommandTest {
  @TempDir
  Path dir;

  record Run(int code, String err) {}

  @Test
  void shouldCloseMissingKeysAndVersionChangedRowsAtTheSnapshotInOneMerge() throws Exception {
    Path table = backfill("examples/customers.yaml");
    Path day2 = write("day2.jsonl",
        row(1, "Oslo", null),   // unchanged: nothing
        row(2, "Rome", null),   // tracked city changed: a new version at --at
        row(4, "Bern", null));  // new key; customer 3 is missing: closed at --at
    Run r = run("apply-snapshot", "--config", "examples/customers.yaml", "--table", table.toString(),
        "--input", day2.toString(), "--at", "2026-01-02T00:00:00Z");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("3 rows, 1 keys closed");
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    assertThat(KernelReader.latest(table, spec)).extracting(ApplySnapshotCommandTest::text).containsExactlyInAnyOrder(
        "1 Oslo [2026-01-01T00:00:00Z, open)",
        "2 Paris [2026-01-01T00:00:00Z, 2026-01-02T00:00:00Z)",
        "2 Rome [2026-01-02T00:00:00Z, open)",
        "3 Nice [2026-01-01T00:00:00Z, 2026-01-02T00:00:00Z)",
        "4 Bern [2026-01-02T00:00:00Z, open)");
    CommitSummary merge = DeltaTable.open(table).history().get(0);
    assertThat(merge.operation()).isEqualTo("MERGE");
    assertThat(merge.operationMetrics()).containsEntry("numTargetRowsInserted", "2")
        .containsEntry("numTargetRowsUpdated", "2").containsEntry("numTargetRowsDeleted", "0");
  }

  /**
   * A snapshot equal to the table changes no row, yet its rows are events a late change must see (a late city
   * change between the table's row and the snapshot's equal one ends at the snapshot): one commit records them.
   */
  @Test
  void shouldChangeNoRowButRecordTheSnapshotWhenNothingChanged() throws Exception {
    Path table = backfill("examples/customers.yaml");
    Path same = write("same.jsonl", row(1, "Oslo", null), row(2, "Paris", null), row(3, "Nice", null));
    long before = KernelReader.latestVersion(table);
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    List<Version> rowsBefore = KernelReader.latest(table, spec);
    Run r = run("apply-snapshot", "--config", "examples/customers.yaml", "--table", table.toString(),
        "--input", same.toString(), "--at", "2026-01-02T00:00:00Z");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("no row changed; table version " + (before + 1) + " records the snapshot's rows");
    assertThat(KernelReader.latestVersion(table)).isEqualTo(before + 1);
    assertThat(KernelReader.latest(table, spec)).containsExactlyInAnyOrderElementsOf(rowsBefore);
    assertThat(EventArchive.files(DeltaTable.open(table).store())).as("the snapshot's events").hasSize(1);
  }

  @Test
  void shouldRefuseASnapshotOlderThanTheTableAndCommitNothing() throws Exception {
    Path table = backfill("examples/customers.yaml");
    Path old = write("old.jsonl", row(1, "Oslo", null));
    long before = KernelReader.latestVersion(table);
    Run r = run("apply-snapshot", "--config", "examples/customers.yaml", "--table", table.toString(),
        "--input", old.toString(), "--at", "2026-01-01T00:00:00Z");
    assertThat(r.code()).isEqualTo(Main.INPUT_ERROR);
    assertThat(r.err()).contains("is not after the newest sequence").contains("Nothing was committed")
        .contains("Fix: apply snapshots in order");
    assertThat(KernelReader.latestVersion(table)).isEqualTo(before);
  }

  @Test
  void shouldRefuseASnapshotWithABadRowAndCommitNothing() throws Exception {
    Path table = backfill("examples/customers.yaml");
    Path bad = write("bad.jsonl", row(1, "Oslo", null), "{\"city\": \"Lyon\"}");
    long before = KernelReader.latestVersion(table);
    Run r = run("apply-snapshot", "--config", "examples/customers.yaml", "--table", table.toString(),
        "--input", bad.toString(), "--at", "2026-01-02T00:00:00Z");
    assertThat(r.code()).isEqualTo(Main.INPUT_ERROR);
    assertThat(r.err()).contains("line 2").contains("missing-key").contains("Fix:");
    assertThat(KernelReader.latestVersion(table)).isEqualTo(before);
  }

  @Test
  void shouldRemoveMissingKeysFromAnScd1Table() throws Exception {
    Path table = backfill("examples/customers-scd1.yaml");
    Path day2 = write("day2.jsonl", row(1, "Oslo", null), row(2, "Rome", "2026-01-01T12:00:00Z"));
    Run r = run("apply-snapshot", "--config", "examples/customers-scd1.yaml", "--table", table.toString(),
        "--input", day2.toString(), "--at", "2026-01-02T00:00:00Z");
    assertThat(r.code()).as(r.err()).isZero();
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers-scd1.yaml"));
    assertThat(KernelReader.latest(table, spec)).extracting(ApplySnapshotCommandTest::text).containsExactlyInAnyOrder(
        "1 Oslo [2026-01-01T00:00:00Z, open)",
        "2 Rome [2026-01-01T00:00:00Z, open)");
    assertThat(DeltaTable.open(table).history().get(0).operationMetrics())
        .containsEntry("numTargetRowsInserted", "0").containsEntry("numTargetRowsUpdated", "1")
        .containsEntry("numTargetRowsDeleted", "1");
  }

  @Test
  void shouldSkipDeriveAndCloseAsForChangesWhenTheSpecHasExpressions() throws Exception {
    Path spec = dir.resolve("customers-expr.yaml");
    Files.writeString(spec, Files.readString(Path.of("examples/customers.yaml"))
        .replace("  op: string\n", "  op: string\n  tier_rank: long\n")
        + "derive:\n  tier_rank: \"event.tier == 'gold' ? 3 : 1\"\nskip_when: \"event.city == 'Lagos'\"\n");
    Path table = backfill(spec.toString());
    Path day2 = write("day2.jsonl",
        row(1, "Oslo", null),    // unchanged: nothing
        row(2, "Lagos", null),   // skipped: as if not in the file, so customer 2 is closed at --at
        row(4, "Bern", null));   // new key, with its derived rank
    Run r = run("apply-snapshot", "--config", spec.toString(), "--table", table.toString(),
        "--input", day2.toString(), "--at", "2026-01-02T00:00:00Z");

    assertThat(r.code()).as(r.err()).isZero();
    List<Version> latest = KernelReader.latest(table, DimensionSpecLoader.load(spec));
    assertThat(latest).extracting(ApplySnapshotCommandTest::text).containsExactlyInAnyOrder(
        "1 Oslo [2026-01-01T00:00:00Z, open)",
        "2 Paris [2026-01-01T00:00:00Z, 2026-01-02T00:00:00Z)",
        "3 Nice [2026-01-01T00:00:00Z, 2026-01-02T00:00:00Z)",
        "4 Bern [2026-01-02T00:00:00Z, open)");
    // attributes: name, email, city, tier, tier_rank; every row is gold
    assertThat(latest).allSatisfy(v -> assertThat(v.attributes().get(4)).isEqualTo(3L));
  }

  /** A table of customers 1 (Oslo), 2 (Paris), 3 (Nice), all from 2026-01-01, written by {@code backfill}. */
  private Path backfill(String spec) throws Exception {
    Path events = write("day1.jsonl", row(1, "Oslo", "2026-01-01T00:00:00Z"), row(2, "Paris", "2026-01-01T00:00:00Z"),
        row(3, "Nice", "2026-01-01T00:00:00Z"));
    Path table = dir.resolve("table");
    Run r = run("backfill", "--config", spec, "--input", events.toString(), "--table", table.toString());
    assertThat(r.code()).as(r.err()).isZero();
    return table;
  }

  private Run run(String... args) {
    StringWriter err = new StringWriter();
    java.io.PrintStream saved = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    int code;
    try {
      CommandLine cl = Main.commandLine();
      cl.setErr(new PrintWriter(err, true));
      code = cl.execute(args);
    } finally {
      System.setErr(saved);
    }
    return new Run(code, err + captured.toString(java.nio.charset.StandardCharsets.UTF_8));
  }

  private Path write(String name, String... lines) throws Exception {
    Path f = dir.resolve(name);
    Files.write(f, List.of(lines));
    return f;
  }

  private static String row(long id, String city, String at) {
    return "{\"customer_id\": " + id + ", \"name\": \"N" + id + "\", \"email\": \"c" + id + "@example.com\", "
        + "\"city\": \"" + city + "\", \"tier\": \"gold\"" + (at == null ? "" : ", \"updated_at\": \"" + at + "\"")
        + "}";
  }

  private static String text(Version v) {
    return v.key().values().get(0) + " " + v.attributes().get(2) + " [" + micros(v.validFrom().first()) + ", "
        + (v.isCurrent() ? "open" : micros(v.validTo().first())) + ")";
  }

  private static String micros(long epochMicros) {
    return Instant.EPOCH.plus(epochMicros, ChronoUnit.MICROS).toString();
  }
}
