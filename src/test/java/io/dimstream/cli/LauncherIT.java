package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.KernelReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./dimstream} launcher as a user runs it, after {@code package}: the class-data-sharing archive of a
 * one-shot command (made by its first run, used by the next, never left half-written), the switches that turn it
 * off, and the JVM options it adds (read from bash's trace of the final {@code java} command).
 */
class LauncherIT {
  private static final Path LAUNCHER = Path.of("dimstream").toAbsolutePath();
  private static final Path SPEC = Path.of("examples", "customers.yaml").toAbsolutePath();
  private static final Path CHANGES = Path.of("examples", "customers-changes.jsonl").toAbsolutePath();

  @TempDir
  Path dir;

  /** Exit code, standard output and standard error of one launcher run. */
  private record Run(int exitCode, String out, String err) {}

  @BeforeAll
  static void jarIsBuilt() {
    assertThat(Path.of("target", "dimstream.jar")).as("mvn verify builds target/dimstream.jar before the "
        + "integration tests; the launcher would otherwise build it itself").isRegularFile();
  }

  private Run launch(Map<String, String> env, boolean trace, String... args) throws IOException,
      InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash"));
    if (trace) {
      cmd.add("-x");
    }
    cmd.add(LAUNCHER.toString());
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "launcher", ".out");
    Path err = Files.createTempFile(dir, "launcher", ".err");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().remove("DIMSTREAM_JAVA_OPTS");
    pb.environment().remove("DIMSTREAM_CDS");
    pb.environment().put("DIMSTREAM_JAVA_OPTS", "-Xmx512m");
    pb.environment().putAll(env);
    Process p = pb.start();
    boolean done = p.waitFor(3, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    Run run = new Run(done ? p.exitValue() : -1, Files.readString(out), Files.readString(err));
    assertThat(done).as("./dimstream %s did not finish in 3 minutes:%n%s", String.join(" ", args), run.err)
        .isTrue();
    return run;
  }

  private Run backfill(Map<String, String> env, Path table) throws IOException, InterruptedException {
    return launch(env, false, "backfill", "--config", SPEC.toString(), "--input", CHANGES.toString(), "--table",
        table.toString());
  }

  private static List<Path> files(Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(directory)) {
      return s.sorted().toList();
    }
  }

  @Test
  void shouldMakeACommandsArchiveOnItsFirstRunAndStartTheNextRunFromIt() throws Exception {
    Path cds = dir.resolve("cds");
    Map<String, String> env = Map.of("DIMSTREAM_CDS_DIR", cds.toString());

    Run first = backfill(env, dir.resolve("first"));
    assertThat(first.exitCode).as(first.err).isZero();
    List<Path> archives = files(cds);
    assertThat(archives).as("one archive for the command, no temporary file left").singleElement()
        .satisfies(a -> assertThat(a.getFileName().toString()).startsWith("backfill-").endsWith(".jsa"));
    FileTime made = Files.getLastModifiedTime(archives.get(0));

    Run second = backfill(env, dir.resolve("second"));
    assertThat(second.exitCode).as(second.err).isZero();
    assertThat(files(cds)).as("the second run uses the archive, it does not write another").isEqualTo(archives);
    assertThat(Files.getLastModifiedTime(archives.get(0))).isEqualTo(made);
    // both runs built the same table
    var spec = DimensionSpecLoader.load(SPEC);
    assertThat(KernelReader.latest(dir.resolve("second"), spec))
        .containsExactlyInAnyOrderElementsOf(KernelReader.latest(dir.resolve("first"), spec)).isNotEmpty();
  }

  @Test
  void shouldWriteNoArchiveWhenTurnedOffOrWhenTheUsersOptionsNameOne() throws Exception {
    Path off = dir.resolve("cds-off");
    Run disabled = launch(Map.of("DIMSTREAM_CDS_DIR", off.toString(), "DIMSTREAM_CDS", "off"), false, "--version");
    assertThat(disabled.exitCode).isZero();
    assertThat(disabled.out).startsWith("dimstream ");
    assertThat(files(off)).isEmpty();

    Path own = dir.resolve("cds-own");
    Run xshare = launch(Map.of("DIMSTREAM_CDS_DIR", own.toString(), "DIMSTREAM_JAVA_OPTS", "-Xshare:off"), false,
        "--version");
    assertThat(xshare.exitCode).isZero();
    assertThat(files(own)).isEmpty();
  }

  @Test
  void shouldAddTheOneShotJvmOptionsUnlessTheUserNamesTheirOwn() throws Exception {
    Map<String, String> noCds = Map.of("DIMSTREAM_CDS", "off");
    String java = javaLine(launch(noCds, true, "--version"));
    assertThat(java).contains("-XX:+UseParallelGC").contains("-Xmx512m");
    Path thp = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
    boolean offered = Files.isReadable(thp) && Files.readString(thp).matches("(?s).*\\[(madvise|always)].*");
    if (offered) {
      assertThat(java).contains("-XX:+UseTransparentHugePages");
    } else {
      assertThat(java).doesNotContain("UseTransparentHugePages");
    }

    String own = javaLine(launch(Map.of("DIMSTREAM_CDS", "off", "DIMSTREAM_JAVA_OPTS",
        "-XX:+UseSerialGC -XX:-UseTransparentHugePages"), true, "--version"));
    assertThat(own).contains("-XX:+UseSerialGC").doesNotContain("UseParallelGC")
        .doesNotContain("-XX:+UseTransparentHugePages");
  }

  /** The {@code java} command the launcher ran, from bash's trace on stderr. */
  private static String javaLine(Run run) {
    assertThat(run.exitCode).as(run.err).isZero();
    return run.err.lines().filter(l -> l.matches("^\\++ (exec )?java .*")).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no java command in the launcher's trace:\n" + run.err));
  }
}
