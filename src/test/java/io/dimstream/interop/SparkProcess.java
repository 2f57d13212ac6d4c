package io.dimstream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Spark 4.0 with Delta 4.0 in a JVM of its own ({@code interop/}'s SparkSql), one for the whole suite: Spark's
 * Jackson, Parquet, Hadoop and Kafka versions never meet dimstream's. Its classpath comes from Maven
 * ({@code interop/pom.xml}, resolved by the same Maven that runs the tests); it binds to 127.0.0.1 only, has no UI, and
 * stops when the test JVM ends.
 */
public final class SparkProcess {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path INTEROP = Path.of("interop").toAbsolutePath();
  private static final long ANSWER_TIMEOUT_SECONDS = 300;
  private static SparkProcess shared;

  private final Process process;
  private final PrintWriter requests;
  private final BlockingQueue<String> answers = new ArrayBlockingQueue<>(16);
  private final Path log;

  private SparkProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.requests = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          answers.put(line);
        }
      } catch (IOException | InterruptedException e) {
        // the process ended; callers time out with the log's tail
      }
    }, "spark-answers");
    reader.setDaemon(true);
    reader.start();
  }

  /** The suite's Spark, started on first use. */
  public static synchronized SparkProcess shared() {
    if (shared == null) {
      shared = start();
      SparkProcess s = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop, "spark-stop"));
    }
    return shared;
  }

  private static SparkProcess start() {
    try {
      Path target = INTEROP.resolve("target");
      String classpath = classpath();
      Path warehouse = Files.createTempDirectory("spark-warehouse");
      Path log = target.resolve("spark-interop.log");
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx1536m", "-XX:+IgnoreUnrecognizedVMOptions", "-Djdk.reflect.useDirectMethodHandle=false",
          "-Dio.netty.tryReflectionSetAccessible=true", "-Djava.net.preferIPv4Stack=true"));
      for (String pkg : List.of("java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net",
          "java.nio", "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref",
          "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar")) {
        cmd.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
      }
      cmd.addAll(List.of("-cp", classpath, "io.dimstream.interop.SparkSql", warehouse.toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
      pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
      SparkProcess s = new SparkProcess(pb.start(), log);
      JsonNode ready = s.answer();
      if (!ready.path("ready").asBoolean()) {
        throw new IllegalStateException("Spark did not start: " + ready);
      }
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Builds {@code interop/} and returns its test classpath: its test classes, then Spark, Delta Spark and their
   * dependencies.
   */
  public static String classpath() throws IOException {
    Path target = INTEROP.resolve("target");
    Path classpathFile = target.resolve("spark-classpath.txt");
    resolveClasspath(classpathFile);
    return target.resolve("test-classes") + java.io.File.pathSeparator + Files.readString(classpathFile).trim();
  }

  /** Builds {@code interop/} and writes its test classpath (Spark, Delta and their dependencies) to {@code file}. */
  private static void resolveClasspath(Path file) throws IOException {
    String home = System.getProperty("maven.home");
    String mvn = home == null || home.isBlank() ? "mvn" : Path.of(home, "bin", "mvn").toString();
    List<String> cmd = new ArrayList<>(List.of(mvn, "-B", "-q", "-f", INTEROP.resolve("pom.xml").toString()));
    String repo = System.getProperty("dimstream.maven.repo");
    if (repo != null && !repo.isBlank()) {
      cmd.add("-Dmaven.repo.local=" + repo);
    }
    cmd.addAll(List.of("test-compile", "dependency:build-classpath", "-Dmdep.includeScope=test",
        "-Dmdep.outputFile=" + file));
    Path out = Files.createTempFile("interop-mvn", ".log");
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      if (!p.waitFor(15, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException("building interop/ failed: " + String.join(" ", cmd) + "\n"
            + Files.readString(out));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while building interop/", e);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /** Runs one SQL statement; the rows as Spark's JSON (null fields left out), or a {@link SparkError}. */
  public synchronized List<JsonNode> sql(String statement) {
    requests.println(statement.replace('\n', ' '));
    JsonNode answer = answer();
    if (answer.has("error")) {
      throw new SparkError(answer.path("errorClass").asText(), answer.path("error").asText(), statement);
    }
    List<JsonNode> rows = new ArrayList<>();
    answer.path("rows").forEach(rows::add);
    return rows;
  }

  private JsonNode answer() {
    try {
      String line = answers.poll(ANSWER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (line == null) {
        throw new IllegalStateException("no answer from Spark within " + ANSWER_TIMEOUT_SECONDS + " s (alive: "
            + process.isAlive() + "); its log " + log + " ends with:\n" + tail());
      }
      return JSON.readTree(line);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Spark", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private void stop() {
    requests.close();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
    }
  }

  /** An error Spark answered with: its exception class and message (which holds Delta's error class). */
  public static final class SparkError extends RuntimeException {
    private final String errorClass;

    SparkError(String errorClass, String message, String statement) {
      super(errorClass + ": " + message + "\n  in: " + statement);
      this.errorClass = errorClass;
    }

    public String errorClass() {
      return errorClass;
    }
  }
}
