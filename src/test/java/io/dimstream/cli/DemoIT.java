package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.history.Scd2Fold;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream demo --exit-when-done}: its own embedded broker, the whole streaming path, a summary, exit 0;
 * on the shipped example and on another spec and change file.
 */
class DemoIT {
  @TempDir
  Path dir;

  /** Runs the command with stdout captured; returns the exit code and what it printed. */
  private record Run(int exitCode, String out) {
    long figure(String label) {
      Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(label) + "\\s+([\\d,]+)").matcher(out);
      assertThat(m.find()).as("the summary shows '%s':%n%s", label, out).isTrue();
      return Long.parseLong(m.group(1).replace(",", ""));
    }
  }

  private static Run demo(String... args) {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    String[] full = new String[args.length + 1];
    full[0] = "demo";
    System.arraycopy(args, 0, full, 1, args.length);
    int code;
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      System.setOut(out);
      code = Main.commandLine().execute(full);
    } finally {
      System.setOut(original);
    }
    String text = captured.toString(StandardCharsets.UTF_8);
    original.print(text);
    return new Run(code, text);
  }

  @Test
  void shouldRunTheShippedExampleAndPrintItsSummary() throws Exception {
    Path table = dir.resolve("table");
    Run run = demo("--exit-when-done", "--data-dir", dir.resolve("data").toString(), "--table", table.toString(),
        "--http-port", "0");

    assertThat(run.exitCode()).as(run.out()).isZero();
    assertThat(run.figure("change records sent")).isEqualTo(335);
    long versions = run.figure("versions in the table");
    long current = run.figure("current rows");
    assertThat(current).isPositive().isLessThan(versions);
    assertThat(run.figure("late events spliced")).isPositive();
    assertThat(run.figure("dead-letter records")).isEqualTo(2);
    assertThat(run.out()).contains(table.toAbsolutePath().normalize().toString()).contains("query history");

    // The streaming path gave the same rows as the batch path over the same file, read back by Delta Kernel.
    DimensionSpec spec = DimensionSpecLoader.load(DemoCommand.EXAMPLE_SPEC);
    Path backfilled = dir.resolve("backfilled");
    assertThat(Main.commandLine().execute("backfill", "--config", DemoCommand.EXAMPLE_SPEC.toString(), "--input",
        DemoCommand.EXAMPLE_INPUT.toString(), "--table", backfilled.toString())).isZero();
    assertThat(EndToEndIT.sorted(KernelReader.latest(table, spec)))
        .hasSize((int) versions)
        .containsExactlyElementsOf(EndToEndIT.sorted(KernelReader.latest(backfilled, spec)));
  }

  @Test
  void shouldRunAnotherSpecAndChangeFile() throws Exception {
    Path yaml = dir.resolve("accounts.yaml");
    Files.writeString(yaml, """
        name: accounts
        columns:
          region: string
          account_no: int
          lsn: long
          balance: decimal(12, 2)
          owner: string
          is_deleted: boolean
        key: [region, account_no]
        sequence: [lsn]
        track: [balance]
        delete: {column: is_deleted}
        lateness_horizon: 100000000
        """);
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 77L).keys(60).events(800)
        .late(0.1).duplicates(0.05).deletes(0.05).generate();
    Path input = dir.resolve("accounts-changes.jsonl");
    stream.writeJsonLines(input);
    Path table = dir.resolve("accounts-table");

    Run run = demo("--config", yaml.toString(), "--input", input.toString(), "--table", table.toString(),
        "--data-dir", dir.resolve("data").toString(), "--http-port", "0", "--exit-when-done");

    assertThat(run.exitCode()).as(run.out()).isZero();
    assertThat(run.out()).contains("dimstream demo: accounts");
    assertThat(run.figure("change records sent")).isEqualTo(800);
    assertThat(run.figure("dead-letter records")).isZero();
    assertThat(EndToEndIT.sorted(KernelReader.latest(table, spec)))
        .containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
  }

  @Test
  void shouldShowTwoDimensionsInOneService() throws Exception {
    Path data = dir.resolve("data");
    Path orders = Path.of("examples", "orders-derived.yaml");
    Run run = demo("--exit-when-done", "--data-dir", data.toString(), "--http-port", "0",
        "--config", DemoCommand.EXAMPLE_SPEC.toString(), "--input", DemoCommand.EXAMPLE_INPUT.toString(),
        "--config", orders.toString(), "--input", "examples/orders-changes.jsonl");

    assertThat(run.exitCode()).as(run.out()).isZero();
    assertThat(run.out()).contains("dimstream demo: customers").contains("dimstream demo: orders")
        .contains("One service, 2 dimensions");
    // each table is what the batch path makes of its own file, read back by Delta Kernel
    for (String[] d : new String[][] {{DemoCommand.EXAMPLE_SPEC.toString(), DemoCommand.EXAMPLE_INPUT.toString()},
        {orders.toString(), "examples/orders-changes.jsonl"}}) {
      DimensionSpec spec = DimensionSpecLoader.load(Path.of(d[0]));
      Path backfilled = dir.resolve("backfilled-" + spec.name());
      assertThat(Main.commandLine().execute("backfill", "--config", d[0], "--input", d[1], "--table",
          backfilled.toString())).isZero();
      assertThat(EndToEndIT.sorted(KernelReader.latest(data.resolve("tables").resolve(spec.name()), spec)))
          .as(spec.name()).isNotEmpty()
          .containsExactlyElementsOf(EndToEndIT.sorted(KernelReader.latest(backfilled, spec)));
    }
  }

  @Test
  void shouldRefuseSeveralSpecsWithoutAnInputEach() {
    Run run = demo("--exit-when-done", "--data-dir", dir.resolve("data").toString(), "--config",
        DemoCommand.EXAMPLE_SPEC.toString(), "--config", "examples/orders-derived.yaml", "--input",
        DemoCommand.EXAMPLE_INPUT.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(dir.resolve("data")).as("nothing started").doesNotExist();
  }
}
