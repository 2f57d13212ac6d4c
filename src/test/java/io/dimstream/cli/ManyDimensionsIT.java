package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.ChangeEvent;
import io.dimstream.service.KafkaClients;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Twenty dimensions in one {@code dimstream run --config <directory>}: one embedded broker, one query endpoint. Each
 * is fed its own changes (late, duplicated, deleted) and its table is the reference fold of them; a twenty-first
 * dimension whose table location is a plain file cannot start, and stops alone: {@code /health} names it and why,
 * the others run. The whole process is then killed (SIGKILL) in the middle of the stream and started again on the
 * same directory: every dimension resumes, and every table is exact.
 */
class ManyDimensionsIT {
  private static final int DIMENSIONS = 20;
  private static final Duration START_TIMEOUT = Duration.ofMinutes(6);
  private static final Pattern ENDPOINT = Pattern.compile("Query endpoint on http://127\\.0\\.0\\.1:(\\d+)/ for");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void shouldRunTwentyDimensionsInOneProcessAndStopABrokenOneAlone() throws Exception {
    Path specs = Files.createDirectories(dir.resolve("dimensions"));
    Path data = dir.resolve("data");
    List<DimensionSpec> dims = new ArrayList<>();
    List<ChangeStreams.GeneratedStream> streams = new ArrayList<>();
    for (int i = 0; i < DIMENSIONS; i++) {
      String name = String.format("many_%02d", i);
      Path yaml = write(specs, name, data, "");
      dims.add(DimensionSpecLoader.load(yaml));
      streams.add(ChangeStreams.random(dims.get(i), 1_000 + i).keys(50).events(400).late(0.1).duplicates(0.05)
          .noChange(0.05).deletes(0.05).generate());
    }
    Path notADirectory = Files.writeString(dir.resolve("plain-file"), "not a table");
    write(specs, "many_broken", data, "  table_path: " + notADirectory + "\n");

    Path log = TakeoverIT.log("many-dimensions-1");
    try (ServiceProcess service = ServiceProcess.start(log, "--config", specs.toString())) {
      awaitRunning(service, log);
      int port = port(log);
      // every dimension but the broken one up: the whole is DEGRADED (200), as the others serve
      JsonNode health = awaitHealth(port, h -> h.path("status").asText().equals("DEGRADED")
          && dims.stream().allMatch(d -> h.path("by_dimension").path(d.name()).path("status").asText().equals("UP")));
      assertThat(health.path("by_dimension").path("many_broken").path("status").asText()).isEqualTo("DOWN");
      assertThat(health.path("by_dimension").path("many_broken").path("details").path("reason").asText())
          .as("the broken dimension's reason").contains("could not start").contains(notADirectory.toString());
      for (DimensionSpec d : dims) {
        assertThat(health.path("by_dimension").path(d.name()).path("status").asText()).as(d.name()).isEqualTo("UP");
      }
      assertThat(get(port, "/dimensions/many_broken").statusCode()).as("the broken one is not served").isEqualTo(404);

      // the first half of every dimension's stream
      for (int i = 0; i < DIMENSIONS; i++) {
        produce(dims.get(i), streams.get(i).jsonLines().subList(0, 200), "first-" + i);
      }
      for (DimensionSpec d : dims) {
        TakeoverIT.awaitCaughtUp(service, d, log, () -> DeltaTable.open(table(data, d)));
      }
      String metrics = get(port, "/metrics").body();
      assertThat(metrics).as("metrics are labelled by dimension").contains("dimension=\"many_00\"")
          .contains("dimension=\"many_19\"");
      service.kill(); // no shutdown hook, no flush
    }

    Path log2 = TakeoverIT.log("many-dimensions-2");
    try (ServiceProcess service = ServiceProcess.start(log2, "--config", specs.toString())) {
      awaitRunning(service, log2);
      for (int i = 0; i < DIMENSIONS; i++) {
        List<String> lines = streams.get(i).jsonLines();
        produce(dims.get(i), lines.subList(200, lines.size()), "second-" + i);
      }
      for (DimensionSpec d : dims) {
        TakeoverIT.awaitCaughtUp(service, d, log2, () -> DeltaTable.open(table(data, d)));
      }
      assertThat(service.stop()).isZero();
    }
    for (int i = 0; i < DIMENSIONS; i++) {
      List<ChangeEvent> events = streams.get(i).events();
      TakeoverIT.assertTableIsTheFoldOf(dims.get(i), events, events.size(), table(data, dims.get(i)),
          DeltaTable.open(table(data, dims.get(i))));
    }
    assertThat(Files.readString(log2)).as("a restart with intact state takes nothing over")
        .doesNotContain("Taking over the table of");
  }

  private static Path table(Path data, DimensionSpec d) {
    return data.resolve("tables").resolve(d.name());
  }

  private Path write(Path specs, String name, Path data, String serviceLines) throws Exception {
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        .replaceFirst("(?m)^name: customers", "name: " + name)
        + "\nservice:\n  data_dir: " + data + "\n  compaction: {interval: 1s}\n  http: {port: 0}\n" + serviceLines;
    return Files.writeString(specs.resolve(name + ".yaml"), yaml);
  }

  private void produce(DimensionSpec spec, List<String> lines, String file) throws Exception {
    Path input = Files.write(dir.resolve(file + ".jsonl"), lines, StandardCharsets.UTF_8);
    ProduceCommand.produce(spec, input, KafkaClients.properties(spec, null));
  }

  private static void awaitRunning(ServiceProcess service, Path log) {
    await("every dimension to start").atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(500))
        .failFast("the service died; see " + log, () -> !service.isAlive())
        .until(() -> Files.readString(log).contains("dimstream running " + DIMENSIONS + " of " + (DIMENSIONS + 1)));
  }

  private static int port(Path log) throws Exception {
    Matcher m = ENDPOINT.matcher(Files.readString(log));
    assertThat(m.find()).as("the endpoint's log line").isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static JsonNode awaitHealth(int port, java.util.function.Predicate<JsonNode> healthy) {
    return await("/health to say every dimension but the broken one is up").atMost(START_TIMEOUT)
        .pollInterval(Duration.ofMillis(500)).until(() -> JSON.readTree(get(port, "/health").body()), healthy::test);
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
