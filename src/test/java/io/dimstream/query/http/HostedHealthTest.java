package io.dimstream.query.http;

import static io.dimstream.query.QueryFixtures.ACCOUNTS;
import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One endpoint for several dimensions (as {@code run --config DIR} hosts them): each registers as it starts and
 * leaves as it stops; {@code /health} shows each under {@code by_dimension} and answers for the whole.
 */
class HostedHealthTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final QueryServer server = QueryServer.builder().bind("127.0.0.1", 0).build().start();

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
        + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static DimensionEndpoint endpoint(io.dimstream.spec.DimensionSpec spec) {
    return new DimensionEndpoint(new ListLiveQueries(spec, List.of()), DimensionEndpoint.CommitHistory.NONE,
        ServiceMetrics.NONE);
  }

  @Test
  void shouldAnswerForTheWholeAndForEachDimension() throws Exception {
    server.reportHealth(CUSTOMERS.name(), () -> new Health(false, Health.STARTING, Map.of()));
    server.reportHealth(ACCOUNTS.name(), () -> new Health(false, Health.STARTING, Map.of()));
    HttpResponse<String> starting = get("/health");
    assertThat(starting.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(starting.body()).path("status").asText()).isEqualTo("STARTING");

    AtomicReference<Health> customers = new AtomicReference<>(Health.healthy());
    server.register(endpoint(CUSTOMERS), customers::get);
    server.register(endpoint(ACCOUNTS), Health::healthy);
    HttpResponse<String> up = get("/health");
    assertThat(up.statusCode()).isEqualTo(200);
    JsonNode upBody = JSON.readTree(up.body());
    assertThat(upBody.path("status").asText()).isEqualTo("UP");
    assertThat(upBody.path("dimensions")).hasSize(2);
    assertThat(upBody.path("by_dimension").path(ACCOUNTS.name()).path("status").asText()).isEqualTo("UP");
    assertThat(get("/dimensions/" + CUSTOMERS.name()).statusCode()).isEqualTo(200);

    // one dimension fails and leaves: the others still serve, and the whole says so with 200
    server.unregister(CUSTOMERS.name(), new Health(false, Map.of("reason", "failed: its compactor stopped")));
    HttpResponse<String> degraded = get("/health");
    assertThat(degraded.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(degraded.body());
    assertThat(body.path("status").asText()).isEqualTo("DEGRADED");
    assertThat(body.path("details").path(CUSTOMERS.name()).asText()).isEqualTo("DOWN");
    assertThat(body.path("by_dimension").path(CUSTOMERS.name()).path("details").path("reason").asText())
        .isEqualTo("failed: its compactor stopped");
    assertThat(get("/dimensions/" + CUSTOMERS.name()).statusCode()).isEqualTo(404);
    assertThat(get("/dimensions/" + ACCOUNTS.name()).statusCode()).isEqualTo(200);

    // none left up: 503
    server.unregister(ACCOUNTS.name(), new Health(false, Map.of("reason", "failed")));
    HttpResponse<String> down = get("/health");
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(down.body()).path("status").asText()).isEqualTo("DOWN");
  }
}
