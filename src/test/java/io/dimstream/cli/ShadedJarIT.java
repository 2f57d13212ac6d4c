package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped {@code target/dimstream.jar}, run as a user runs it, in its own JVM: it carries almost nothing of
 * Hadoop, so this proves that the demo (its embedded broker, the whole streaming path and Parquet writes) and the
 * table commands (Parquet and checkpoint reads) work on the jar's class path alone. Failsafe runs it after
 * {@code package}.
 */
class ShadedJarIT {
  private static final Path JAR = Path.of("target", "dimstream.jar");

  @TempDir
  Path dir;

  /** Exit code and combined output of one command. */
  private record Run(int exitCode, String out) {}

  @BeforeAll
  static void jarIsBuilt() {
    assertThat(JAR).as("%s is missing: build it with 'mvn -B -DskipTests package' (mvn verify does it before the "
        + "integration tests)", JAR.toAbsolutePath()).isRegularFile();
  }

  private Run jar(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g", "-jar", JAR.toString()));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "jar", ".out");
    Path err = Files.createTempFile(dir, "jar", ".err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    boolean done = p.waitFor(4, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    String stdout = Files.readString(out);
    String stderr = Files.readString(err);
    System.out.print(stdout);
    System.out.print(stderr);
    assertThat(done).as("dimstream.jar %s did not finish in 4 minutes:%n%s", String.join(" ", args), stderr)
        .isTrue();
    // the stack trace a missing class would leave, whatever the command's exit code
    assertThat(stderr).doesNotContain("NoClassDefFoundError").doesNotContain("ClassNotFoundException");
    return new Run(p.exitValue(), stdout + (p.exitValue() == 0 ? "" : stderr));
  }

  private static String inProcess(String... args) {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      System.setOut(out);
      assertThat(Main.commandLine().execute(args)).isZero();
    } finally {
      System.setOut(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void shouldCarryNeitherHadoopsFileSystemNorItsBundledLibraries() throws IOException {
    try (ZipFile zip = new ZipFile(JAR.toFile())) {
      assertThat(zip.getEntry("org/apache/hadoop/fs/FileSystem.class")).isNull();
      assertThat(zip.stream().map(e -> e.getName()).filter(n -> n.startsWith("org/apache/hadoop/shaded/")))
          .isEmpty();
    }
  }

  @Test
  void shouldRunTheDemoAndTheTableCommandsFromTheJarAlone() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(DemoCommand.EXAMPLE_SPEC);
    Path table = dir.resolve("table");
    Run demo = jar("demo", "--exit-when-done", "--data-dir", dir.resolve("data").toString(), "--table",
        table.toString(), "--http-port", "0");
    assertThat(demo.exitCode()).as(demo.out()).isZero();
    assertThat(demo.out()).contains("versions in the table");

    Path backfilled = dir.resolve("backfilled");
    Run backfill = jar("backfill", "--config", DemoCommand.EXAMPLE_SPEC.toString(), "--input",
        DemoCommand.EXAMPLE_INPUT.toString(), "--table", backfilled.toString());
    assertThat(backfill.exitCode()).as(backfill.out()).isZero();
    assertThat(EndToEndIT.sorted(KernelReader.latest(table, spec)))
        .isNotEmpty()
        .containsExactlyElementsOf(EndToEndIT.sorted(KernelReader.latest(backfilled, spec)));

    // From here on the jar opens the table from a Parquet checkpoint, the other file it reads.
    DeltaTable.open(table).checkpoint();
    Run verify = jar("table", "verify", "--table", table.toString());
    assertThat(verify.exitCode()).as(verify.out()).isZero();
    assertThat(verify.out()).startsWith("OK");
    Run history = jar("query", "history", "--table", table.toString(), "--key", "1009");
    assertThat(history.exitCode()).as(history.out()).isZero();
    assertThat(history.out())
        .isEqualTo(inProcess("query", "history", "--table", table.toString(), "--key", "1009"))
        .contains("\"customer_id\":1009");

    Run optimize = jar("table", "optimize", "--table", table.toString());
    assertThat(optimize.exitCode()).as(optimize.out()).isZero();
    assertThat(EndToEndIT.sorted(KernelReader.latest(table, spec)))
        .containsExactlyElementsOf(EndToEndIT.sorted(KernelReader.latest(backfilled, spec)));
  }
}
