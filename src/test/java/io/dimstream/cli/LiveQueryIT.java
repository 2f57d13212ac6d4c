package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.query.VersionRows;
import io.dimstream.query.http.TestCertificates;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.testkit.ChangeStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live query endpoint of two running instances of one dimension: every key can be asked of either
 * instance, and a key the other instance owns is answered by it (routed with Kafka Streams' key metadata).
 * Both endpoints are secured as a cluster's would be (TLS, a bearer token and client certificates), so the
 * forwarding between them runs under TLS with credentials.
 */
class LiveQueryIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private static final String TOKEN = "live-query-it-token";

  private TestCertificates.Identity identity;
  private HttpClient http;

  private DimensionSpec spec(String instance) throws Exception {
    Path file = ExampleSpec.write(dir, "customers_live", instance, dir.resolve(instance), "  partitions: 4\n", "");
    String secured = Files.readString(file).replace("http: {port: 0}", "http: {port: 0, tls: {cert: "
        + identity.certPem() + ", key: " + identity.keyPem() + ", client_ca: " + identity.certPem()
        + "}, auth: {token: " + TOKEN + "}}");
    return DimensionSpecLoader.load(Files.writeString(file, secured));
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldAnswerEveryKeyFromEitherInstance() throws Exception {
    identity = TestCertificates.create(dir, "instances");
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
        .sslContext(TestCertificates.client(identity, identity)).build();
    DimensionSpec a = spec("a");
    DimensionSpec b = spec("b");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(a, 5).keys(40).events(800)
        .late(0.1).duplicates(0.05).deletes(0.05).generate();
    Path input = dir.resolve("changes.jsonl");
    stream.writeJsonLines(input);
    List<Version> expected = Scd2Fold.fold(a, stream.events());
    Map<BusinessKey, List<Version>> byKey = expected.stream().collect(Collectors.groupingBy(Version::key));

    try (DimensionService one = DimensionService.start(a, KAFKA.bootstrapServers());
        DimensionService two = DimensionService.start(b, KAFKA.bootstrapServers())) {
      ProduceCommand.produce(a, input, one.kafka());
      assertThat(CatchUp.await(() -> CatchUp.streamsCaughtUp(one.kafka(), a, "dimstream-" + a.name()),
          Duration.ofMinutes(3))).isTrue();

      VersionRows rows = new VersionRows(a);
      int servedByOther = 0;
      for (Map.Entry<BusinessKey, List<Version>> e : byKey.entrySet()) {
        String key = String.valueOf(e.getKey().values().get(0));
        Version open = e.getValue().stream().filter(Version::isCurrent).findFirst().orElse(null);
        HttpResponse<String> r = get(one.httpPort(), "/dimensions/customers_live/keys/" + key);
        if (open == null) {
          assertThat(r.statusCode()).as("deleted key %s", key).isEqualTo(404);
        } else {
          assertThat(r.statusCode()).as("key %s: %s", key, r.body()).isEqualTo(200);
          assertThat(JSON.readTree(r.body()).toString()).isEqualTo(rows.json(open).toString());
        }
        String servedBy = r.headers().firstValue("X-Dimstream-Served-By").orElse("");
        if (servedBy.endsWith(":" + two.httpPort())) {
          servedByOther++;
        }
        HttpResponse<String> h = get(two.httpPort(), "/dimensions/customers_live/keys/" + key + "/history");
        assertThat(h.statusCode()).isEqualTo(200);
        JsonNode versions = JSON.readTree(h.body()).get("versions");
        assertThat(versions).hasSize(e.getValue().size());
        for (int i = 0; i < versions.size(); i++) {
          assertThat(versions.get(i).toString()).isEqualTo(rows.json(e.getValue().get(i)).toString());
        }
        Version first = e.getValue().get(0);
        String at = rows.json(first).get("valid_from").asText();
        HttpResponse<String> asOf = get(one.httpPort(), "/dimensions/customers_live/keys/" + key + "?asOf=" + at);
        assertThat(JSON.readTree(asOf.body()).toString()).isEqualTo(rows.json(first).toString());
      }
      assertThat(servedByOther).as("keys owned by the second instance, answered through the first").isPositive();

      assertThat(get(one.httpPort(), "/dimensions/customers_live/keys/999999").statusCode()).isEqualTo(404);
      assertThat(get(one.httpPort(), "/dimensions/nope/keys/1").statusCode()).isEqualTo(404);
      assertThat(get(one.httpPort(), "/dimensions/customers_live/keys/1?asOf=yesterday").statusCode()).isEqualTo(400);
      assertThat(get(one.httpPort(), "/health").statusCode()).isEqualTo(200);
      HttpResponse<String> noToken = http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:"
          + one.httpPort() + "/dimensions/customers_live/keys/1")).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(noToken.statusCode()).isEqualTo(401);
      TestCertificates.Identity stranger = TestCertificates.create(dir, "stranger");
      HttpClient wrongCertificate = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
          .sslContext(TestCertificates.client(identity, stranger)).build();
      HttpRequest asked = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + one.httpPort()
          + "/dimensions/customers_live/keys/1")).header("Authorization", "Bearer " + TOKEN).GET().build();
      assertThatThrownBy(() -> wrongCertificate.send(asked, HttpResponse.BodyHandlers.ofString()))
          .as("a certificate the instances' client CA did not sign fails the handshake")
          .isInstanceOf(java.io.IOException.class);
      String metrics = get(one.httpPort(), "/metrics").body();
      assertThat(metrics).contains("dimstream_events_in_total{dimension=\"customers_live\"}");
    }
  }
}
