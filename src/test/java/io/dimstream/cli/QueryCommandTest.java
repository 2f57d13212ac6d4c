package io.dimstream.cli;

import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static io.dimstream.query.QueryFixtures.customer;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.query.QueryTables;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class QueryCommandTest {
  private static final Version PARIS = customer(1, "2026-01-01T00:00:00Z", null, "Paris", "gold", "Ann");
  private static final Version PARIS_CLOSED = customer(1, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "Paris",
      "gold", "Ann");
  private static final Version LYON = customer(1, "2026-01-05T00:00:00Z", null, "Lyon", "gold", "Ann");
  private static final Version NICE = customer(2, "2026-01-03T00:00:00Z", null, "Nice", "silver", null);

  @TempDir
  Path dir;
  Path table;

  /** Table version 1: Paris (open) and Nice; version 2: Paris closed, Lyon opened. */
  @BeforeEach
  void writeTable() {
    table = dir.resolve("customers");
    QueryTables.write(table, CUSTOMERS, List.of(PARIS, NICE), List.of(PARIS_CLOSED, LYON));
  }

  record Run(int code, String out, String err) {}

  static Run run(Object command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(command);
    PrintWriter o = new PrintWriter(out);
    PrintWriter e = new PrintWriter(err);
    cl.setOut(o);
    cl.setErr(e);
    int code = cl.execute(args);
    o.flush();
    e.flush();
    return new Run(code, out.toString(), err.toString());
  }

  Run query(String... args) {
    return run(new QueryCommand(), args);
  }

  @Test
  void shouldPrintAsOfRowsAsReplayJsonLines() {
    Run r = query("as-of", "--table", table.toString(), "--at", "2026-01-04T00:00:00Z", "--key", "1",
        "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines()).containsExactly("{\"customer_id\":1,\"city\":\"Paris\",\"tier\":\"gold\",\"name\":"
        + "\"Ann\",\"valid_from\":\"2026-01-01T00:00:00Z\",\"valid_to\":\"2026-01-05T00:00:00Z\",\"is_current\":false}");
  }

  @Test
  void shouldDefaultToJsonWhenStdoutIsNotATerminal() {
    Run r = query("as-of", "--table", table.toString(), "--at", "2026-01-06T00:00:00Z", "--where", "tier=silver");
    assertThat(r.out().lines()).singleElement().asString().startsWith("{\"customer_id\":2,\"city\":\"Nice\"");
  }

  @Test
  void shouldReadAnOlderTableVersion() {
    Run latest = query("as-of", "--table", table.toString(), "--at", "2026-01-06T00:00:00Z", "--key", "1",
        "--format", "csv");
    Run v1 = query("as-of", "--table", table.toString(), "--at", "2026-01-06T00:00:00Z", "--key", "1",
        "--format", "csv", "--version", "1");
    assertThat(latest.out().lines()).containsExactly(
        "customer_id,city,tier,name,valid_from,valid_to,is_current",
        "1,Lyon,gold,Ann,2026-01-05T00:00:00Z,,true");
    assertThat(v1.out().lines()).containsExactly(
        "customer_id,city,tier,name,valid_from,valid_to,is_current",
        "1,Paris,gold,Ann,2026-01-01T00:00:00Z,,true");
  }

  @Test
  void shouldPrintHistoryOldestFirstAsATextTable() {
    Run r = query("history", "--table", table.toString(), "--key", "customer_id=1", "--format", "table");
    assertThat(r.code()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).startsWith("customer_id | city  | tier | name | valid_from");
    assertThat(lines.get(2)).contains("Paris").contains("2026-01-05T00:00:00Z").endsWith("false");
    assertThat(lines.get(3)).contains("Lyon").endsWith("true");
  }

  @Test
  void shouldPrintChangesWithWhatChanged() {
    Run r = query("changes", "--table", table.toString(), "--from", "2026-01-01T00:00:00Z", "--to",
        "2026-01-10T00:00:00Z", "--format", "csv");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines()).containsExactly(
        "customer_id,at,change,changed",
        "1,2026-01-01T00:00:00Z,insert,city: - -> Paris; tier: - -> gold; name: - -> Ann",
        "2,2026-01-03T00:00:00Z,insert,city: - -> Nice; tier: - -> silver; name: - -> ",
        "1,2026-01-05T00:00:00Z,update,city: Paris -> Lyon");
  }

  @Test
  void shouldExitWith2OnABadTimeAndNameTheExpectedForm() {
    Run r = query("as-of", "--table", table.toString(), "--at", "last tuesday");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("\"last tuesday\"").contains("2024-01-01T06:00:00.500Z");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void shouldExitWith2OnAnUnknownKeyColumn() {
    Run r = query("history", "--table", table.toString(), "--key", "id=1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("'id' is not a key column").contains("[customer_id]");
  }

  @Test
  void shouldExitWith2OnAnUnknownFormatOrMissingOption() {
    assertThat(query("history", "--table", table.toString(), "--key", "1", "--format", "xml").code()).isEqualTo(2);
    assertThat(query("history", "--table", table.toString()).code()).isEqualTo(2);
    assertThat(query("as-of", "--table", table.toString(), "--at", "2026-01-01T00:00:00Z", "--version", "1",
        "--table-timestamp", "2026-01-01T00:00:00Z").code()).isEqualTo(2);
  }

  @Test
  void shouldExitWith1OnAMissingTableOrVersionOrKey() {
    Run missing = query("history", "--table", dir.resolve("nope").toString(), "--key", "1");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("nope").contains("no _delta_log").contains("--table");
    Run version = query("history", "--table", table.toString(), "--key", "1", "--version", "9");
    assertThat(version.code()).isEqualTo(1);
    assertThat(version.err()).contains("version 9").contains("latest available version is 2");
    Run key = query("history", "--table", table.toString(), "--key", "77");
    assertThat(key.code()).isEqualTo(1);
    assertThat(key.err()).contains("Key 77 of customers has no version");
  }

  @Test
  void shouldDocumentExitCodesInHelp() {
    Run r = query("as-of", "--help");
    assertThat(r.out()).as(r.code() + r.err()).contains("Exit codes:").contains("2").contains("bad --at").contains("terminal");
  }
}
