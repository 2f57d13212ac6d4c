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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream run --config DIR} follows its directory without a restart: a spec that cannot be loaded changes
 * nothing; then one dimension's spec removed, another's changed and a new one added, in one edit, stop, restart and
 * start those dimensions while the untouched one runs on. Each dimension's table is the reference fold of what it was
 * sent while it ran.
 */
class SpecReloadIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(4);
  private static final Pattern ENDPOINT = Pattern.compile("Query endpoint on http://127\\.0\\.0\\.1:(\\d+)/ for");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void shouldAddRemoveAndRestartDimensionsWhenTheirSpecFilesChange() throws Exception {
    Path specs = Files.createDirectories(dir.resolve("dimensions"));
    Path data = dir.resolve("data");
    DimensionSpec kept = DimensionSpecLoader.load(write(specs, "reload_kept", data, ""));
    DimensionSpec changed = DimensionSpecLoader.load(write(specs, "reload_changed", data, ""));
    DimensionSpec removed = DimensionSpecLoader.load(write(specs, "reload_removed", data, ""));
    ChangeStreams.GeneratedStream keptStream = stream(kept, 1);
    ChangeStreams.GeneratedStream changedStream = stream(changed, 2);
    ChangeStreams.GeneratedStream removedStream = stream(removed, 3);
    // the new dimension's spec, written into the directory while the service runs
    Path addedFile = write(Files.createDirectories(dir.resolve("later")), "reload_added", data, "");
    DimensionSpec added = DimensionSpecLoader.load(addedFile);
    ChangeStreams.GeneratedStream addedStream = stream(added, 4);

    Path log = TakeoverIT.log("spec-reload");
    try (ServiceProcess service = ServiceProcess.start(log, "--config", specs.toString(), "--reload-interval",
        "500ms")) {
      await("every dimension to start").atMost(TIMEOUT).pollInterval(Duration.ofMillis(500))
          .failFast("the service died; see " + log, () -> !service.isAlive())
          .until(() -> Files.readString(log).contains("dimstream running 3 of 3"));
      int port = port(log);
      produce(kept, keptStream.jsonLines().subList(0, 150), "kept-1");
      produce(changed, changedStream.jsonLines().subList(0, 150), "changed-1");
      produce(removed, removedStream.jsonLines(), "removed");
      for (DimensionSpec d : List.of(kept, changed, removed)) {
        TakeoverIT.awaitCaughtUp(service, d, log, () -> DeltaTable.open(table(data, d)));
      }

      // a spec that cannot be loaded: the whole new set is refused, and nothing stops
      Files.writeString(specs.resolve("reload_bad.yaml"), "name: reload_bad\ncolumns: [not, a, spec]\n");
      await("the refusal in the log").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
          .until(() -> Files.readString(log).contains("the new set was not loaded, so every dimension runs on as"
              + " before"));
      assertThat(status(port, "reload_removed")).isEqualTo("UP");

      // one edit: the bad file and one dimension gone, one changed, one new
      Files.delete(specs.resolve("reload_bad.yaml"));
      Files.move(specs.resolve("reload_removed.yaml"), dir.resolve("reload_removed.yaml"));
      write(specs, "reload_changed", data, "  compaction: {interval: 2s}\n");
      Files.copy(addedFile, specs.resolve("reload_added.yaml"));
      await("the reload").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
          .failFast("the service died; see " + log, () -> !service.isAlive())
          .until(() -> Files.readString(log).contains("Reloaded the dimensions: [reload_added] added,"
              + " [reload_removed] removed, [reload_changed] restarted with a changed spec"));
      JsonNode health = await("/health to show the new set").atMost(TIMEOUT).pollInterval(Duration.ofMillis(500))
          .until(() -> JSON.readTree(get(port, "/health")), h -> List.of("reload_kept", "reload_changed",
              "reload_added").stream().allMatch(n -> h.path("by_dimension").path(n).path("status").asText()
              .equals("UP")));
      assertThat(health.path("by_dimension").has("reload_removed")).as("the removed dimension is gone").isFalse();
      assertThat(health.path("status").asText()).isEqualTo("UP");

      produce(kept, keptStream.jsonLines().subList(150, keptStream.jsonLines().size()), "kept-2");
      produce(changed, changedStream.jsonLines().subList(150, changedStream.jsonLines().size()), "changed-2");
      produce(added, addedStream.jsonLines(), "added");
      for (DimensionSpec d : List.of(kept, changed, added)) {
        TakeoverIT.awaitCaughtUp(service, d, log, () -> DeltaTable.open(table(data, d)));
      }
      assertThat(service.stop()).isZero();
    }
    assertIsTheFold(kept, keptStream.events(), data);
    assertIsTheFold(changed, changedStream.events(), data);
    assertIsTheFold(removed, removedStream.events(), data);
    assertIsTheFold(added, addedStream.events(), data);
    assertThat(Files.readString(log)).as("the restarted dimension kept its state")
        .doesNotContain("Taking over the table of reload_changed");
  }

  private static void assertIsTheFold(DimensionSpec spec, List<ChangeEvent> events, Path data) {
    TakeoverIT.assertTableIsTheFoldOf(spec, events, events.size(), table(data, spec),
        DeltaTable.open(table(data, spec)));
  }

  private static ChangeStreams.GeneratedStream stream(DimensionSpec spec, long seed) {
    return ChangeStreams.random(spec, seed).keys(40).events(300).late(0.1).duplicates(0.05).deletes(0.05).generate();
  }

  private static Path table(Path data, DimensionSpec d) {
    return data.resolve("tables").resolve(d.name());
  }

  private static Path write(Path specs, String name, Path data, String serviceLines) throws Exception {
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        .replaceFirst("(?m)^name: customers", "name: " + name)
        + "\nservice:\n  data_dir: " + data + "\n  http: {port: 0}\n"
        + (serviceLines.isEmpty() ? "  compaction: {interval: 1s}\n" : serviceLines);
    return Files.writeString(specs.resolve(name + ".yaml"), yaml);
  }

  private void produce(DimensionSpec spec, List<String> lines, String file) throws Exception {
    Path input = Files.write(dir.resolve(file + ".jsonl"), lines, StandardCharsets.UTF_8);
    ProduceCommand.produce(spec, input, KafkaClients.properties(spec, null));
  }

  private static int port(Path log) throws Exception {
    Matcher m = ENDPOINT.matcher(Files.readString(log));
    assertThat(m.find()).as("the endpoint's log line").isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static String status(int port, String dimension) throws Exception {
    return JSON.readTree(get(port, "/health")).path("by_dimension").path(dimension).path("status").asText();
  }

  private static String get(int port, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
  }
}
