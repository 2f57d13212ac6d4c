package io.dimstream.trino;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Trino 476 server as a process on 127.0.0.1, one for the whole test JVM ({@link #shared()}): Maven unpacks
 * its {@code lib/} and Delta Lake plugin before the integration tests ({@code dimstream.trino.home}), it runs on a
 * JDK of version 24 or newer ({@link #javaHome()}) with a 1.5 GiB heap, and has one catalog, {@code delta}: the
 * Delta Lake connector over a file metastore in a temporary directory, reading local paths ({@code file:///...}).
 * The server stops when the test JVM ends, and by itself when that JVM is killed (a shell beside it watches the
 * parent). Queries go through Trino's JDBC driver ({@link #connect()}).
 */
public final class TrinoServer {
  /** Where .ci/run installs Temurin's JDK (Debian package temurin-25-jdk). */
  private static final Path TEMURIN = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
  private static final int MIN_JAVA = 24;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(240);
  private static final String USER = "dimstream-test";
  private static final Logger LOG = LoggerFactory.getLogger(TrinoServer.class);
  private static TrinoServer shared;

  private final Process process;
  private final int port;
  private final Path dir;

  private TrinoServer(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  /** The suite's Trino, started on first use (about 20 s) and stopped when the JVM ends. */
  public static synchronized TrinoServer shared() {
    if (shared == null) {
      shared = start();
      TrinoServer s = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop, "trino-stop"));
    }
    return shared;
  }

  private static TrinoServer start() {
    try {
      Path home = home();
      Path dir = Files.createTempDirectory("dimstream-trino");
      int port = freePort();
      Path etc = Files.createDirectories(dir.resolve("etc"));
      Path catalogs = Files.createDirectories(etc.resolve("catalog"));
      Path metastore = Files.createDirectories(dir.resolve("metastore"));
      Files.writeString(etc.resolve("config.properties"), String.join("\n",
          "coordinator=true",
          "node-scheduler.include-coordinator=true",
          "http-server.http.port=" + port,
          "http-server.log.enabled=false",
          "discovery.uri=http://127.0.0.1:" + port,
          // the S3 tests add a catalog for their server's endpoint with CREATE CATALOG
          "catalog.management=dynamic",
          "query.max-memory=1GB",
          "query.max-memory-per-node=512MB",
          ""), StandardCharsets.UTF_8);
      Files.writeString(catalogs.resolve("delta.properties"), String.join("\n",
          "connector.name=delta_lake",
          "hive.metastore=file",
          "hive.metastore.catalog.dir=local://" + metastore.toAbsolutePath(),
          "fs.native-local.enabled=true",
          "local.location=/",
          "delta.register-table-procedure.enabled=true",
          ""), StandardCharsets.UTF_8);
      List<String> java = new ArrayList<>(List.of(javaHome().resolve("bin/java").toString(),
          "-Xmx1536m", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", "-XX:ReservedCodeCacheSize=256m",
          "-Djdk.attach.allowAttachSelf=true", "-XX:+EnableDynamicAgentLoading", "--enable-native-access=ALL-UNNAMED",
          "-Dfile.encoding=UTF-8",
          "-Dnode.environment=test", "-Dnode.id=dimstream-test", "-Dnode.data-dir=" + dir.resolve("data"),
          // the server listens on loopback only, and tells itself (discovery) that address
          "-Dnode.bind-ip=127.0.0.1", "-Dnode.internal-address=127.0.0.1",
          "-Dconfig=" + etc.resolve("config.properties"), "-Dcatalog.config-dir=" + catalogs,
          "-Dplugin.dir=" + home.resolve("plugin"), "-Dlog.output-file=" + dir.resolve("server.log"),
          "-cp", home.resolve("lib") + "/*", "io.trino.server.TrinoServer"));
      // The shell starts the server, stops it on SIGTERM (Process.destroy), and stops it when this JVM is gone
      // (killed, so no shutdown hook ran).
      String watch = "\"$@\" & server=$!; trap 'kill $server 2>/dev/null; wait $server; exit 0' TERM INT; "
          + "while kill -0 " + ProcessHandle.current().pid() + " 2>/dev/null && kill -0 $server 2>/dev/null; do "
          + "sleep 1; done; kill $server 2>/dev/null; wait $server";
      List<String> cmd = new ArrayList<>(List.of("bash", "-c", watch, "trino"));
      cmd.addAll(java);
      Path out = dir.resolve("launcher.log");
      long started = System.nanoTime();
      Process process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(out.toFile()).start();
      TrinoServer server = new TrinoServer(process, port, dir);
      server.awaitStarted(started, out);
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      LOG.info("Trino 476 answers on 127.0.0.1:{} after {} ms (JDK {}, logs in {})", port, took.toMillis(),
          javaHome(), dir);
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitStarted(long started, Path out) {
    long deadline = started + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Trino exited with " + process.exitValue() + "; its output ends with:\n"
            + tail(out) + "\nits log:\n" + tail(dir.resolve("server.log")));
      }
      try (Connection c = connect(); Statement s = c.createStatement()) {
        // the catalogs are loaded once the server answers with its nodes active
        s.executeQuery("SELECT count(*) FROM delta.information_schema.schemata").close();
        return;
      } catch (SQLException notYet) {
        // not listening, or still starting
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stop();
        throw new IllegalStateException("interrupted while Trino starts", e);
      }
    }
    stop();
    throw new IllegalStateException("Trino did not answer within " + START_TIMEOUT + "; its log:\n"
        + tail(dir.resolve("server.log")));
  }

  /** A JDBC connection to the server, catalog {@code delta}, as a user without password (none is configured). */
  public Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", USER);
    return DriverManager.getConnection("jdbc:trino://127.0.0.1:" + port + "/delta", p);
  }

  /** Runs one statement that returns nothing worth reading (DDL, a procedure call). */
  public void execute(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private void stop() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    // its configuration, metastore and log: the tables it read live elsewhere
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }

  /** The unpacked server: the pom's pre-integration-test steps put it there. */
  static Path home() {
    String configured = System.getProperty("dimstream.trino.home");
    Path home = configured != null ? Path.of(configured) : Path.of("target/trino-server-476");
    if (!Files.isDirectory(home.resolve("lib")) || !Files.isDirectory(home.resolve("plugin/delta-lake"))) {
      throw new IllegalStateException("No Trino server at " + home.toAbsolutePath() + ": run the integration tests"
          + " with `mvn verify`, whose pre-integration-test phase unpacks io.trino:trino-server:476:tar.gz there");
    }
    return home;
  }

  /**
   * A JDK that runs Trino 476 (Java 24 or newer): {@code DIMSTREAM_JAVA24_HOME}, else {@code DIMSTREAM_JAVA21_HOME}
   * when that one is 24 or newer, else the Temurin JDK .ci/run installs, else the JDK running the tests when it is
   * new enough.
   */
  static Path javaHome() {
    List<Path> candidates = new ArrayList<>();
    for (String env : List.of("DIMSTREAM_JAVA24_HOME", "DIMSTREAM_JAVA21_HOME")) {
      String value = System.getenv(env);
      if (value != null && !value.isBlank()) {
        candidates.add(Path.of(value));
      }
    }
    candidates.add(TEMURIN);
    candidates.add(Path.of(System.getProperty("java.home")));
    for (Path jdk : candidates) {
      if (Files.isExecutable(jdk.resolve("bin/java")) && feature(jdk) >= MIN_JAVA) {
        return jdk;
      }
    }
    throw new IllegalStateException("Trino 476 needs Java " + MIN_JAVA + " or newer and none was found among "
        + candidates + ": install temurin-25-jdk (as .ci/run does) or set DIMSTREAM_JAVA24_HOME to a JDK 24+");
  }

  /** The feature version a JDK's {@code release} file names (0 when it has none). */
  private static int feature(Path jdk) {
    try {
      for (String line : Files.readAllLines(jdk.resolve("release"), StandardCharsets.UTF_8)) {
        if (line.startsWith("JAVA_VERSION=")) {
          String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          return Integer.parseInt(v.split("[.+-]")[0]);
        }
      }
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
