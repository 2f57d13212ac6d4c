package io.dimstream.query.http;

import static io.dimstream.query.QueryFixtures.ACCOUNTS;
import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static io.dimstream.query.QueryFixtures.customer;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.query.LiveQueries;
import io.dimstream.query.TableCommit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class QueryServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final List<Version> CUSTOMER_ROWS = List.of(
      customer(42, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "Paris", "gold", "Ann"),
      customer(42, "2026-01-05T00:00:00Z", null, "Lyon", "gold", "Ann"),
      customer(7, "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "Nice", "gold", "Bob"));
  private static final List<Version> ACCOUNT_ROWS = List.of(
      new Version(BusinessKey.of("eu", 7), Sequence.of(100), null, List.of("active")));

  private final List<QueryServer> servers = new ArrayList<>();
  private QueryServer server;

  record Reply(int status, String contentType, String body, HttpResponse<String> raw) {
    JsonNode json() throws Exception {
      return JSON.readTree(body);
    }
  }

  private QueryServer start(LiveQueries customers) {
    QueryServer s = QueryServer.builder().bind("127.0.0.1", 0)
        .dimension(new DimensionEndpoint(customers, limit -> List.of(
            new TableCommit(3, Instant.parse("2026-02-01T10:00:00Z"), "WRITE", Map.of("numOutputRows", "12")),
            new TableCommit(2, Instant.parse("2026-02-01T09:00:00Z"), "OPTIMIZE", Map.of())).subList(0, Math.min(2, limit)),
            new FixedMetrics()))
        .dimension(new DimensionEndpoint(new ListLiveQueries(ACCOUNTS, ACCOUNT_ROWS),
            DimensionEndpoint.CommitHistory.NONE, ServiceMetrics.NONE))
        .build().start();
    servers.add(s);
    return s;
  }

  @BeforeEach
  void startServer() {
    server = start(new ListLiveQueries(CUSTOMERS, CUSTOMER_ROWS));
  }

  @AfterEach
  void stop() {
    servers.forEach(QueryServer::close);
  }

  private Reply get(QueryServer s, String pathAndQuery) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + pathAndQuery))
        .GET().build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body(), r);
  }

  private Reply get(String pathAndQuery) throws Exception {
    return get(server, pathAndQuery);
  }

  @Test
  void shouldBindToLoopbackOnAFreePort() {
    assertThat(server.host()).isEqualTo("127.0.0.1");
    assertThat(server.port()).isPositive();
  }

  @Test
  void shouldServeTheCurrentVersionAsAReplayRow() throws Exception {
    Reply r = get("/dimensions/customers/keys/42");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("application/json");
    assertThat(r.json()).isEqualTo(JSON.readTree("{\"customer_id\":42,\"city\":\"Lyon\",\"tier\":\"gold\","
        + "\"name\":\"Ann\",\"valid_from\":\"2026-01-05T00:00:00Z\",\"valid_to\":null,\"is_current\":true}"));
  }

  @Test
  void shouldServeTheVersionValidAtAsOf() throws Exception {
    Reply r = get("/dimensions/customers/keys/42?asOf=2026-01-04T23:00:00Z");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().get("city").asText()).isEqualTo("Paris");
    assertThat(get("/dimensions/customers/keys/42?asOf=2026-01-05T00:00:00%2B00:00").json().get("city").asText())
        .isEqualTo("Lyon");
  }

  @Test
  void shouldAnswer400ForABadAsOfOrKey() throws Exception {
    Reply r = get("/dimensions/customers/keys/42?asOf=tomorrow");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).isEqualTo("bad_input");
    assertThat(r.json().get("message").asText()).contains("\"tomorrow\"").contains("ISO-8601");
    assertThat(get("/dimensions/customers/keys/abc").status()).isEqualTo(400);
    assertThat(get("/dimensions/accounts/keys/region=eu").json().get("message").asText())
        .contains("[account_no]");
  }

  @Test
  void shouldAnswer404ForUnknownDimensionKeyOrRoute() throws Exception {
    Reply dim = get("/dimensions/orders/keys/1");
    assertThat(dim.status()).isEqualTo(404);
    assertThat(dim.json().get("message").asText()).contains("'orders'").contains("[accounts, customers]");
    Reply key = get("/dimensions/customers/keys/999");
    assertThat(key.status()).isEqualTo(404);
    assertThat(key.json().get("error").asText()).isEqualTo("not_found");
    assertThat(get("/dimensions/customers/keys/999/history").status()).isEqualTo(404);
    assertThat(get("/dimensions/customers/keys/7").status()).as("deleted key has no current version")
        .isEqualTo(404);
    assertThat(get("/dimensions/customers/keys/7?asOf=2026-01-02T12:00:00Z").status()).isEqualTo(200);
    assertThat(get("/nothing/here").status()).isEqualTo(404);
  }

  @Test
  void shouldRejectOtherMethodsWith405() throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
        + "/dimensions/customers/keys/42")).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(405);
  }

  @Test
  void shouldServeHistoryOldestFirst() throws Exception {
    Reply r = get("/dimensions/customers/keys/customer_id%3D42/history");
    assertThat(r.status()).isEqualTo(200);
    JsonNode n = r.json();
    assertThat(n.get("key")).isEqualTo(JSON.readTree("{\"customer_id\":42}"));
    assertThat(n.get("attributes").toString()).isEqualTo("[\"city\",\"tier\",\"name\"]");
    assertThat(n.get("tracked").toString()).isEqualTo("[\"city\",\"tier\"]");
    assertThat(n.get("versions")).extracting(v -> v.get("city").asText()).containsExactly("Paris", "Lyon");
  }

  @Test
  void shouldReadCompositeKeysEncodedOrNot() throws Exception {
    assertThat(get("/dimensions/accounts/keys/region%3Deu%2Caccount_no%3D7").json().get("status").asText())
        .isEqualTo("active");
    assertThat(get("/dimensions/accounts/keys/account_no=7,region=eu").status()).isEqualTo(200);
  }

  @Test
  void shouldListDimensionsAndCommits() throws Exception {
    JsonNode d = get("/dimensions").json();
    assertThat(d.get("dimensions")).extracting(x -> x.get("name").asText()).containsExactly("accounts", "customers");
    JsonNode c = get("/dimensions/customers/commits?limit=1").json();
    assertThat(c.get("commits")).hasSize(1);
    assertThat(c.get("commits").get(0).get("version").asLong()).isEqualTo(3);
    assertThat(c.get("commits").get(0).get("operationMetrics").get("numOutputRows").asText()).isEqualTo("12");
    assertThat(get("/dimensions/customers/commits?limit=x").status()).isEqualTo(400);
  }

  @Test
  void shouldReportHealthAndPrometheusMetrics() throws Exception {
    Reply h = get("/health");
    assertThat(h.status()).isEqualTo(200);
    assertThat(h.json().get("status").asText()).isEqualTo("UP");
    Reply m = get("/metrics");
    assertThat(m.contentType()).startsWith("text/plain; version=0.0.4");
    assertThat(m.body().lines()).contains(
        "# TYPE dimstream_events_in_total counter",
        "dimstream_events_in_total{dimension=\"customers\"} 1000",
        "dimstream_versions_out_total{dimension=\"customers\"} 900",
        "dimstream_late_events_spliced_total{dimension=\"customers\"} 12",
        "dimstream_dlq_records_total{dimension=\"customers\"} 3",
        "dimstream_tombstones_skipped_total{dimension=\"customers\"} 5",
        "dimstream_compaction_lag_records{dimension=\"customers\"} 40",
        "dimstream_table_last_commit_version{dimension=\"customers\"} 17",
        "dimstream_table_last_commit_version{dimension=\"accounts\"} -1",
        "# TYPE dimstream_unknown_fields_total counter",
        "dimstream_unknown_fields_total{dimension=\"customers\",field=\"loyalty \\\"pts\\\"\"} 5");
  }

  @Test
  void shouldAnswer503WhenUnhealthy() throws Exception {
    QueryServer down = QueryServer.builder().bind("127.0.0.1", 0)
        .health(() -> new Health(false, Map.of("streams", "REBALANCING"))).build().start();
    servers.add(down);
    Reply r = get(down, "/health");
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.json().get("details").get("streams").asText()).isEqualTo("REBALANCING");
  }

  @Test
  void shouldServeTheTimelinePage() throws Exception {
    Reply r = get("/");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("text/html");
    assertThat(r.body()).contains("<title>dimstream timeline</title>").doesNotContain("http://").doesNotContain("https://");
  }

  @Test
  void shouldForwardAKeyOwnedByAnotherInstanceAndRelayItsAnswer() throws Exception {
    AtomicInteger askedB = new AtomicInteger();
    // B holds key 42 with other data, so the answer shows who served it
    List<Version> bRows = List.of(customer(42, "2026-01-05T00:00:00Z", null, "Lyon-on-B", "gold", "Ann"));
    QueryServer b = start(new ListLiveQueries(CUSTOMERS, bRows, k -> {
      askedB.incrementAndGet();
      return Optional.empty();
    }));
    LiveQueries.InstanceAddress bAddress = new LiveQueries.InstanceAddress("127.0.0.1", b.port());
    // A thinks 42 lives on B, and B (stale metadata) would think it lives on A: the forward must not loop
    QueryServer a = start(new ListLiveQueries(CUSTOMERS, CUSTOMER_ROWS,
        k -> k.equals(BusinessKey.of(42L)) ? Optional.of(bAddress) : Optional.empty()));
    Reply r = get(a, "/dimensions/customers/keys/42");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().get("city").asText()).isEqualTo("Lyon-on-B");
    assertThat(r.raw().headers().firstValue(QueryServer.SERVED_BY_HEADER)).contains(bAddress.toString());
    assertThat(askedB.get()).as("a forwarded request is answered locally, without asking for the owner").isZero();
    assertThat(get(a, "/dimensions/customers/keys/42/history?x=1").json().get("versions")).hasSize(1);
    assertThat(get(a, "/dimensions/customers/keys/999").status()).as("B's 404 is relayed").isEqualTo(404);
    assertThat(get(a, "/dimensions/customers/keys/7?asOf=2026-01-02T12:00:00Z").json().get("city").asText())
        .as("keys A owns are answered by A").isEqualTo("Nice");
  }

  @Test
  void shouldAnswer502WhenTheOwnerIsDown() throws Exception {
    QueryServer gone = start(new ListLiveQueries(CUSTOMERS, CUSTOMER_ROWS));
    int port = gone.port();
    gone.close();
    QueryServer a = start(new ListLiveQueries(CUSTOMERS, CUSTOMER_ROWS,
        k -> Optional.of(new LiveQueries.InstanceAddress("127.0.0.1", port))));
    Reply r = get(a, "/dimensions/customers/keys/42");
    assertThat(r.status()).isEqualTo(502);
    assertThat(r.json().get("message").asText()).contains("127.0.0.1:" + port).contains("did not answer");
  }

  private static final class FixedMetrics implements ServiceMetrics {
    @Override
    public long eventsIn() {
      return 1000;
    }

    @Override
    public long versionsOut() {
      return 900;
    }

    @Override
    public long lateEventsSpliced() {
      return 12;
    }

    @Override
    public long dlqRecords() {
      return 3;
    }

    @Override
    public long compactionLag() {
      return 40;
    }

    @Override
    public long lastCommitVersion() {
      return 17;
    }

    @Override
    public long tombstonesSkipped() {
      return 5;
    }

    @Override
    public Map<String, Long> unknownFields() {
      return Map.of("loyalty \"pts\"", 5L);
    }
  }
}
