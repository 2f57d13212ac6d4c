package io.dimstream.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Apicurio Registry 3.3.3 as a process on 127.0.0.1, for integration tests: Maven unpacks it before the
 * integration tests ({@code dimstream.apicurio.home}), it runs on a JDK of version 21 or newer
 * ({@link #javaHome()}), and keeps its schemas in an H2 file under the given directory, so a {@link #restart} finds
 * them again as a registry with real storage would. Its Confluent-compatible API is {@link #confluentUrl()}.
 */
public final class ApicurioRegistry implements AutoCloseable {
  /** Where .ci/run installs Temurin's JDK (Debian package temurin-25-jdk). */
  private static final Path TEMURIN = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final int port;
  private final int managementPort;
  private final List<String> extraProperties;
  /** The {@code Authorization} header of every request the test makes, or null. */
  private final String authorization;
  private Process process;

  private ApicurioRegistry(Path dir, List<String> extraProperties, String authorization) throws IOException {
    this.dir = dir;
    this.port = freePort();
    this.managementPort = freePort();
    this.extraProperties = List.copyOf(extraProperties);
    this.authorization = authorization;
  }

  /** Starts a registry keeping its data under {@code dir}; waits until its API answers. */
  public static ApicurioRegistry start(Path dir) throws IOException, InterruptedException {
    return start(dir, List.of());
  }

  /** As {@link #start(Path)}, with more {@code -Dname=value} system properties for the registry. */
  public static ApicurioRegistry start(Path dir, List<String> systemProperties)
      throws IOException, InterruptedException {
    ApicurioRegistry r = new ApicurioRegistry(dir, systemProperties, null);
    r.launch();
    return r;
  }

  /**
   * A registry whose API answers only requests with HTTP basic authentication as {@code user}: Quarkus' own basic
   * authentication with one user held in the configuration, every path under {@code /apis} for authenticated
   * callers only.
   */
  public static ApicurioRegistry startWithLogin(Path dir, String user, String password)
      throws IOException, InterruptedException {
    ApicurioRegistry r = new ApicurioRegistry(dir, List.of("-Dquarkus.http.auth.basic=true",
        "-Dquarkus.security.users.embedded.enabled=true", "-Dquarkus.security.users.embedded.plain-text=true",
        "-Dquarkus.security.users.embedded.users." + user + "=" + password,
        "-Dquarkus.security.users.embedded.roles." + user + "=sr-admin",
        "-Dquarkus.http.auth.permission.apis.paths=/apis/*",
        "-Dquarkus.http.auth.permission.apis.policy=authenticated"),
        "Basic " + java.util.Base64.getEncoder().encodeToString((user + ":" + password)
            .getBytes(StandardCharsets.UTF_8)));
    r.launch();
    return r;
  }

  /** A request to the API with the test's own login, if any. */
  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(confluentUrl() + path)).timeout(Duration.ofSeconds(10));
    return authorization == null ? b : b.header("Authorization", authorization);
  }

  /** The base URL of the Confluent-compatible API, as a spec's {@code schema_registry.url} gives it. */
  public String confluentUrl() {
    return "http://127.0.0.1:" + port + "/apis/ccompat/v7";
  }

  /** Registers an Avro schema under {@code subject} (a new version when it differs); returns its id. */
  public int register(String subject, String avroSchema) throws IOException, InterruptedException {
    String body = JSON.writeValueAsString(Map.of("schema", avroSchema));
    HttpResponse<String> r = HTTP.send(request("/subjects/" + subject + "/versions")
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("Apicurio refused the schema for " + subject + ": " + r.statusCode() + " "
          + r.body());
    }
    return JSON.readTree(r.body()).get("id").asInt();
  }

  /** The schema registered under {@code id}, as a registry-aware consumer fetches it. */
  public String schema(int id) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(request("/schemas/ids/" + id).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("Apicurio has no schema " + id + ": " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body()).get("schema").asText();
  }

  /** The subjects the registry holds. */
  public List<String> subjects() throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(request("/subjects").build(), HttpResponse.BodyHandlers.ofString());
    List<String> out = new ArrayList<>();
    JSON.readTree(r.body()).forEach(n -> out.add(n.asText()));
    return out;
  }

  /** The version numbers of {@code subject}, as the registry lists them. */
  public List<Integer> versions(String subject) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(request("/subjects/" + java.net.URLEncoder.encode(subject,
        StandardCharsets.UTF_8) + "/versions").build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("Apicurio lists no versions of " + subject + ": " + r.statusCode() + " "
          + r.body());
    }
    List<Integer> out = new ArrayList<>();
    JSON.readTree(r.body()).forEach(n -> out.add(n.asInt()));
    return out;
  }

  /** Stops the process (as a crash or an outage would: no goodbye to clients). */
  public void stop() throws InterruptedException {
    if (process != null) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      process = null;
    }
  }

  /** Starts it again on the same port and data. */
  public void restart() throws IOException, InterruptedException {
    stop();
    launch();
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }

  private void launch() throws IOException, InterruptedException {
    Path home = home();
    Files.createDirectories(dir);
    List<String> cmd = new ArrayList<>(List.of(javaHome().resolve("bin/java").toString(), "-Xmx512m",
        "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + port,
        // health and metrics listen apart, on 0.0.0.0:9000 unless told: keep them on loopback and a free port
        "-Dquarkus.management.host=127.0.0.1", "-Dquarkus.management.port=" + managementPort,
        "-Dapicurio.datasource.url=jdbc:h2:file:" + dir.resolve("registry").toAbsolutePath(),
        "-Dapicurio.datasource.jdbc.initial-size=2", "-Dapicurio.datasource.jdbc.min-size=2"));
    cmd.addAll(extraProperties);
    cmd.addAll(List.of("-jar", "quarkus-run.jar"));
    Path log = dir.resolve("registry.log");
    process = new ProcessBuilder(cmd).directory(home.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Apicurio Registry exited with " + process.exitValue() + "; its log: "
            + tail(log));
      }
      try {
        HttpResponse<String> r = HTTP.send(request("/subjects").build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    stop();
    throw new IllegalStateException("Apicurio Registry did not answer within " + START_TIMEOUT + "; its log: "
        + tail(log));
  }

  /** The unpacked registry: the pom's pre-integration-test step puts it there. */
  static Path home() {
    String configured = System.getProperty("dimstream.apicurio.home");
    Path home = configured != null ? Path.of(configured) : Path.of("target/apicurio-registry-3.3.3");
    if (!Files.isRegularFile(home.resolve("quarkus-run.jar"))) {
      throw new IllegalStateException("No Apicurio Registry at " + home.toAbsolutePath() + ": run the integration"
          + " tests with `mvn verify`, whose pre-integration-test phase unpacks io.apicurio:apicurio-registry-app:"
          + "3.3.3:tar.gz:all there");
    }
    return home;
  }

  /**
   * A JDK that runs Apicurio 3 (Java 21 or newer): {@code DIMSTREAM_JAVA21_HOME}, else the Temurin JDK .ci/run
   * installs, else the JDK running the tests when it is new enough.
   */
  static Path javaHome() {
    String env = System.getenv("DIMSTREAM_JAVA21_HOME");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    if (Files.isExecutable(TEMURIN.resolve("bin/java"))) {
      return TEMURIN;
    }
    if (Runtime.version().feature() >= 21) {
      return Path.of(System.getProperty("java.home"));
    }
    throw new IllegalStateException("Apicurio Registry needs Java 21 or newer and this JVM is "
        + Runtime.version() + ": install temurin-25-jdk (as .ci/run does) or set DIMSTREAM_JAVA21_HOME to a JDK 21+");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
