package io.dimstream.cli;

import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static io.dimstream.query.QueryFixtures.customer;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.query.QueryFixtures;
import io.dimstream.query.QueryTables;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.PreviousRelease;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableCommandTest {
  @TempDir
  Path dir;

  QueryCommandTest.Run table(String... args) {
    return QueryCommandTest.run(new TableCommand(), args);
  }

  @Test
  void shouldVerifyAGeneratedHistory() {
    Path t = dir.resolve("t");
    QueryTables.write(t, CUSTOMERS, QueryFixtures.generate(5, 100, 2_000).versions());
    QueryCommandTest.Run r = table("verify", "--table", t.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("OK: table version 1");
  }

  @Test
  void shouldExitWith1AndNameKeysThatBreakTheInvariants() {
    Path t = dir.resolve("t");
    List<Version> broken = List.of(
        customer(1, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "Paris", "gold", "A"),
        customer(1, "2026-01-03T00:00:00Z", null, "Lyon", "gold", "A"),
        customer(2, "2026-01-01T00:00:00Z", null, "Nice", "gold", "B"),
        customer(2, "2026-01-02T00:00:00Z", null, "Nice", "silver", "B"),
        customer(3, "2026-01-01T00:00:00Z", null, "Metz", "gold", "C"));
    QueryTables.write(t, CUSTOMERS, broken);
    QueryCommandTest.Run r = table("verify", "--table", t.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).startsWith("FAILED");
    assertThat(r.out()).contains("key 1: versions [2026-01-01T00:00:00Z, 2026-01-05T00:00:00Z) and [2026-01-03T00:00:00Z, open) overlap").contains("key 2: ")
        .doesNotContain("key 3");
  }

  @Test
  void shouldListCommitsNewestFirstAndRunMaintenance() {
    Path t = dir.resolve("t");
    QueryTables.write(t, CUSTOMERS, List.of(customer(1, "2026-01-01T00:00:00Z", null, "Paris", "gold", "A")),
        List.of(customer(2, "2026-01-01T00:00:00Z", null, "Nice", "gold", "B")));
    QueryCommandTest.Run h = table("history", "--table", t.toString(), "--format", "json");
    assertThat(h.code()).isZero();
    List<String> lines = h.out().lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).startsWith("{\"version\":2,").contains("\"operation\":\"WRITE\"");
    assertThat(lines.get(2)).startsWith("{\"version\":0,");
    assertThat(table("optimize", "--table", t.toString()).code()).isZero();
    QueryCommandTest.Run v = table("vacuum", "--table", t.toString(), "--retain", "P7D");
    assertThat(v.code()).as(v.err()).isZero();
    assertThat(v.out()).startsWith("Vacuumed: 0 files deleted");
  }

  @Test
  void shouldReadTheRetentionInTheSpecsDurationSyntaxAndInIso8601() {
    Path t = dir.resolve("t");
    QueryTables.write(t, CUSTOMERS, List.of(customer(1, "2026-01-01T00:00:00Z", null, "Paris", "gold", "A")));

    for (String retain : List.of("7d", "12h", "90m", "0s", "P7D", "PT36H")) {
      QueryCommandTest.Run ok = table("vacuum", "--table", t.toString(), "--retain", retain);
      assertThat(ok.code()).as("--retain %s: %s", retain, ok.err()).isZero();
    }
    // 30 days is longer than the 7 days the log remembers removed files: read right, then refused by the table.
    QueryCommandTest.Run tooLong = table("vacuum", "--table", t.toString(), "--retain", "30d");
    assertThat(tooLong.code()).isEqualTo(1);
    assertThat(tooLong.err()).contains("vacuum retention PT720H is negative or longer than");
  }

  @Test
  void shouldExitWith2AndShowBothSyntaxesOnAnUnreadableRetention() {
    QueryCommandTest.Run r = table("vacuum", "--table", dir.resolve("t").toString(), "--retain", "30 days");

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("cannot read '30 days' as a duration").contains("30d").contains("P7D");
  }

  @Test
  void shouldUpgradeACopyOnWriteTableToDeletionVectorsOnce() {
    Path t = dir.resolve("t");
    DeltaTable.create(t, CUSTOMERS, Map.of("delta.enableDeletionVectors", "false"));
    QueryCommandTest.Run first = table("upgrade", "--table", t.toString(), "--deletion-vectors");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).contains("Upgraded: table version 1 uses deletion vectors");
    assertThat(DeltaTable.open(t).properties()).containsEntry("delta.enableDeletionVectors", "true");
    QueryCommandTest.Run again = table("upgrade", "--table", t.toString(), "--deletion-vectors");
    assertThat(again.code()).isZero();
    assertThat(again.out()).contains("Nothing to upgrade: table version 1");
    QueryCommandTest.Run plain = table("upgrade", "--table", t.toString());
    assertThat(plain.code()).isZero();
    assertThat(plain.out()).startsWith("Protocol complete: table version 1");
  }

  @Test
  void shouldFailVerifyAndWarnReadersOnATableOfAnEarlierReleaseUntilUpgradeCompletesItsProtocol() {
    Path t = dir.resolve("t");
    QueryTables.write(t, CUSTOMERS, List.of(customer(1, "2026-01-01T00:00:00Z", null, "Paris", "gold", "A")));
    PreviousRelease.rewriteProtocol(t);

    QueryCommandTest.Run verify = table("verify", "--table", t.toString());
    assertThat(verify.code()).isEqualTo(1);
    assertThat(verify.out()).startsWith("FAILED: table version 1").contains("[invariants]", "Delta Spark refuses",
        "dimstream table upgrade --table " + t);
    QueryCommandTest.Run query = QueryCommandTest.run(new QueryCommand(), "as-of", "--table", t.toString(),
        "--at", "2026-01-06T00:00:00Z", "--format", "csv");
    assertThat(query.code()).isZero();
    assertThat(query.out().lines()).hasSize(2);
    assertThat(query.err()).startsWith("warning: ").contains("[invariants]", "dimstream table upgrade --table " + t);
    assertThat(DeltaTable.open(t).latest().version()).as("reading wrote nothing").isEqualTo(1);

    QueryCommandTest.Run upgrade = table("upgrade", "--table", t.toString());
    assertThat(upgrade.code()).as(upgrade.err()).isZero();
    assertThat(upgrade.out()).startsWith("Protocol completed: table version 2 adds the table feature(s) [invariants]");
    QueryCommandTest.Run again = table("verify", "--table", t.toString());
    assertThat(again.code()).as(again.out()).isZero();
    assertThat(again.out()).startsWith("OK: table version 2");
    assertThat(QueryCommandTest.run(new QueryCommand(), "as-of", "--table", t.toString(), "--at",
        "2026-01-06T00:00:00Z").err()).isEmpty();
  }

  @Test
  void shouldExitWith1OnAMissingTable() {
    QueryCommandTest.Run r = table("verify", "--table", dir.resolve("none").toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("no _delta_log");
  }
}
