package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.KafkaClients;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A takeover killed half-way, as a user would see it: {@code dimstream run} on a backfilled table of 200k keys says
 * {@code TAKING_OVER} (503) on {@code /health} with its progress in rows, answers a key's history from the table
 * meanwhile, is killed with SIGKILL before the takeover ends, and the next {@code run} takes the table over again,
 * completes, and continues the stream: the table is the fold of the whole stream, one open row per key.
 */
class TakeoverCrashIT {
  private static final Pattern ENDPOINT = Pattern.compile("Query endpoint listening on http://127\\.0\\.0\\.1:(\\d+)/");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void shouldTakeOverAgainAfterAKillDuringTheTakeover() throws Exception {
    Path yaml = ExampleSpec.write(dir, "customers_takeover_crash", "customers_takeover_crash", dir.resolve("data"), "",
        "");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 20_260_310L).keys(200_000).events(405_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    int cut = 400_000;
    List<String> lines = stream.jsonLines();
    Path backfilled = Files.write(dir.resolve("archive.jsonl"), lines.subList(0, cut), StandardCharsets.UTF_8);
    Path later = Files.write(dir.resolve("later.jsonl"), lines.subList(cut, lines.size()), StandardCharsets.UTF_8);
    Path table = dir.resolve("table");
    assertThat(TakeoverIT.cli("backfill", "--config", yaml.toString(), "--input", backfilled.toString(), "--table",
        table.toString())).isZero();
    List<Version> backfilledRows = Scd2Fold.fold(spec, stream.events().subList(0, cut));
    BusinessKey sample = keyWithSeveralVersions(backfilledRows);
    List<Version> sampleRows = backfilledRows.stream().filter(v -> v.key().equals(sample)).toList();

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    Path log1 = TakeoverIT.log("crash-1");
    try (ServiceProcess service = ServiceProcess.start(log1, "--config", yaml.toString())) {
      int port = awaitPort(service, log1);
      AtomicReference<HttpResponse<String>> health = new AtomicReference<>();
      await("/health to say TAKING_OVER with the rows written so far").atMost(TakeoverIT.PHASE_TIMEOUT)
          .pollInterval(Duration.ofMillis(20)).failFast("the service died; see " + log1, () -> !service.isAlive())
          .until(() -> {
            health.set(get(http, port, "/health"));
            return health.get().body().contains("TAKING_OVER") && health.get().body().contains(" rows");
          });
      JsonNode body = JSON.readTree(health.get().body());
      assertThat(health.get().statusCode()).as(health.get().body()).isEqualTo(503);
      assertThat(body.get("status").asText()).isEqualTo("TAKING_OVER");
      assertThat(body.get("details").get("takeover").asText()).as("the takeover's progress")
          .containsPattern("[\\d,]+ of [\\d,]+ rows");

      // meanwhile a key's history is answered from the table: the backfilled versions, oldest first
      HttpResponse<String> history = get(http, port, "/dimensions/" + spec.name() + "/keys/"
          + sample.values().get(0) + "/history");
      assertThat(history.statusCode()).as(history.body()).isEqualTo(200);
      JsonNode versions = JSON.readTree(history.body()).get("versions");
      assertThat(versions).hasSize(sampleRows.size());
      for (int i = 0; i < sampleRows.size(); i++) {
        Version v = sampleRows.get(i);
        JsonNode got = versions.get(i);
        assertThat(Instant.parse(got.get("valid_from").asText())).isEqualTo(instant(v.validFrom().first()));
        assertThat(got.get("valid_to").isNull() ? null : Instant.parse(got.get("valid_to").asText()))
            .isEqualTo(v.validTo() == null ? null : instant(v.validTo().first()));
        assertThat(got.get("city").isNull() ? null : got.get("city").asText()).isEqualTo(v.attributes().get(2));
        assertThat(got.get("tier").isNull() ? null : got.get("tier").asText()).isEqualTo(v.attributes().get(3));
      }

      assertThat(get(http, port, "/health").body()).as("still taking over when killed").contains("TAKING_OVER");
      service.kill();
    }
    assertThat(Files.readString(log1)).as("killed before the takeover ended; see %s", log1)
        .contains("Taking over the table of " + spec.name()).doesNotContain("Took over");

    Path log2 = TakeoverIT.log("crash-2");
    try (ServiceProcess service = ServiceProcess.start(log2, "--config", yaml.toString())) {
      TakeoverIT.awaitStarted(service, spec, log2);
      assertThat(Files.readString(log2)).as("the state of the killed takeover is not trusted; see %s", log2)
          .contains("Taking over the table of " + spec.name()).contains("Took over table version");
      int port = awaitPort(service, log2);
      ProduceCommand.produce(spec, later, KafkaClients.properties(spec, null));
      TakeoverIT.awaitCaughtUp(service, spec, log2, () -> DeltaTable.open(table));
      await("/health to say UP").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
          .until(() -> get(http, port, "/health").statusCode() == 200);
      assertThat(service.stop()).isZero();
    }
    List<ChangeEvent> events = stream.events();
    // the backfill's kept events survive the killed takeover: the one after it is exact for every key
    TakeoverIT.assertTableIsTheFoldOf(spec, events, 0, table, DeltaTable.open(table));
    List<Version> rows = EndToEndIT.sorted(KernelReader.latest(table, spec));
    assertThat(rows.stream().filter(Version::isCurrent).map(Version::key).distinct().count())
        .as("no key has two open rows").isEqualTo(rows.stream().filter(Version::isCurrent).count());
  }

  private static BusinessKey keyWithSeveralVersions(List<Version> rows) {
    for (int i = 2; i < rows.size(); i++) {
      if (rows.get(i).key().equals(rows.get(i - 2).key())) {
        return rows.get(i).key();
      }
    }
    throw new AssertionError("no key with three versions");
  }

  private static Instant instant(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
  }

  private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static int awaitPort(ServiceProcess service, Path log) {
    AtomicReference<Integer> port = new AtomicReference<>();
    await("the query endpoint to listen").atMost(TakeoverIT.PHASE_TIMEOUT).pollInterval(Duration.ofMillis(20))
        .failFast("the service died; see " + log, () -> !service.isAlive())
        .until(() -> {
          Matcher m = ENDPOINT.matcher(Files.readString(log));
          if (m.find()) {
            port.set(Integer.parseInt(m.group(1)));
          }
          return port.get() != null;
        });
    return port.get();
  }
}
