package io.dimstream.query.http;

import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static io.dimstream.query.QueryFixtures.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.Version;
import io.dimstream.query.TableCommit;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The query endpoint keeps answering while clients hold connections open, trickle requests or flood it. */
class HostileClientsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<Version> ROWS = List.of(customer(42, "2026-01-05T00:00:00Z", null, "Lyon", "gold", "Ann"));

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void closeAll() throws Exception {
    trickler.shutdownNow();
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private QueryServer start(QueryServer.Builder b) {
    QueryServer s = b.bind("127.0.0.1", 0)
        .dimension(new DimensionEndpoint(new ListLiveQueries(CUSTOMERS, ROWS), limit -> List.of(
            new TableCommit(1, Instant.parse("2026-02-01T10:00:00Z"), "WRITE", Map.of())), ServiceMetrics.NONE))
        .build().start();
    toClose.add(s);
    return s;
  }

  /** Opens a connection from {@code localAddress} that starts a request and then sends one header line per tick. */
  private Socket slowClient(String localAddress, int port, Duration tick) throws IOException {
    Socket s = RawHttp.connect(localAddress, port);
    toClose.add(s);
    s.getOutputStream().write("GET /dimensions/customers/keys/42 HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
    trickler.scheduleAtFixedRate(() -> {
      try {
        s.getOutputStream().write("X-Slow: 1\r\n".getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        // closed by the server: what the tests below expect sooner or later
      }
    }, tick.toMillis(), tick.toMillis(), TimeUnit.MILLISECONDS);
    return s;
  }

  private static HttpResponse<String> query(QueryServer s, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
        .timeout(Duration.ofSeconds(3)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldAnswerQueriesWhileAHundredSlowClientsHoldConnections() throws Exception {
    QueryServer server = start(QueryServer.builder());
    List<Socket> slow = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      // ten clients on each of ten addresses, within the per-address limit: a spread attack, not one greedy host
      slow.add(slowClient("127.0.0." + (10 + i % 10), server.port(), Duration.ofMillis(500)));
    }
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> r = query(server, "/dimensions/customers/keys/42");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(r.body()).get("city").asText()).isEqualTo("Lyon");
    }
    int open = 0;
    for (Socket s : slow) {
      open += RawHttp.closedByServer(s, 20) ? 0 : 1;
    }
    assertThat(open).as("the slow clients were still connected while the queries were answered").isEqualTo(100);
  }

  @Test
  void shouldCloseAConnectionWhoseRequestHeadDoesNotArriveInTime() throws Exception {
    QueryServer server = start(QueryServer.builder()
        .limits(HttpLimits.DEFAULTS.withRequestTimeout(Duration.ofSeconds(1))));
    // one header line every 200 ms: never idle, so only the request timeout can end it
    Socket slow = slowClient("127.0.0.1", server.port(), Duration.ofMillis(200));
    await().atMost(Duration.ofSeconds(10)).until(() -> RawHttp.closedByServer(slow, 100));
    assertThat(query(server, "/dimensions/customers/keys/42").statusCode()).isEqualTo(200);
  }

  @Test
  void shouldCloseAConnectionThatSendsNothing() throws Exception {
    QueryServer server = start(QueryServer.builder()
        .limits(HttpLimits.DEFAULTS.withIdleTimeout(Duration.ofSeconds(1))));
    Socket silent = RawHttp.connect("127.0.0.1", server.port());
    toClose.add(silent);
    await().atMost(Duration.ofSeconds(10)).until(() -> RawHttp.closedByServer(silent, 100));
  }

  @Test
  void shouldKeepAnIdleKeepAliveConnectionThatCompletedItsRequests() throws Exception {
    QueryServer server = start(QueryServer.builder()
        .limits(HttpLimits.DEFAULTS.withRequestTimeout(Duration.ofMillis(500))));
    try (Socket s = RawHttp.connect("127.0.0.1", server.port())) {
      s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(RawHttp.closedByServer(s, 2_000)).as("a finished request is not a slow one").isFalse();
    }
  }

  @Test
  void shouldRefuseConnectionsBeyondThePerAddressLimit() throws Exception {
    QueryServer server = start(QueryServer.builder().limits(HttpLimits.DEFAULTS.withMaxConnectionsPerAddress(3)));
    List<Socket> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(slowClient("127.0.0.20", server.port(), Duration.ofMillis(500)));
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      Socket fourth = slowClient("127.0.0.20", server.port(), Duration.ofMillis(500));
      assertThat(RawHttp.closedByServer(fourth, 2_000)).as("a fourth connection from one address").isTrue();
    });
    assertThat(RawHttp.send(server.port(), "127.0.0.21", "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close"
        + "\r\n\r\n").status()).as("another address is served").isEqualTo(200);
    for (Socket s : held) {
      assertThat(RawHttp.closedByServer(s, 20)).as("the first three stay open").isFalse();
    }
    held.get(0).close();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(RawHttp.send(server.port(), "127.0.0.20",
        "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
        .as("a freed slot is usable again").isEqualTo(200));
  }

  static Stream<Arguments> badRequests() {
    return Stream.of(
        Arguments.of(Named.of("malformed escape in the key", "/dimensions/customers/keys/%ZZ"), "two hex digits"),
        Arguments.of(Named.of("lone % at the end", "/dimensions/customers/keys/42%"), "two hex digits"),
        Arguments.of(Named.of("escape that is not UTF-8", "/dimensions/customers/keys/%C0%AF"),
            "do not decode to UTF-8 text"),
        Arguments.of(Named.of("encoded space before the key", "/dimensions/customers/keys/%2042"), "ASCII digits"),
        Arguments.of(Named.of("plus sign", "/dimensions/customers/keys/+42"), "ASCII digits"),
        Arguments.of(Named.of("Arabic-Indic digits", "/dimensions/customers/keys/%D9%A4%D9%A2"), "ASCII digits"),
        Arguments.of(Named.of("full-width digits", "/dimensions/customers/keys/%EF%BC%94%EF%BC%92"), "ASCII digits"),
        Arguments.of(Named.of("negative limit", "/dimensions/customers/commits?limit=-1"), "between 1 and 1000"),
        Arguments.of(Named.of("zero limit", "/dimensions/customers/commits?limit=0"), "between 1 and 1000"),
        Arguments.of(Named.of("limit too large", "/dimensions/customers/commits?limit=1001"), "between 1 and 1000"),
        Arguments.of(Named.of("limit beyond long", "/dimensions/customers/commits?limit=99999999999999999999"),
            "between 1 and 1000"),
        Arguments.of(Named.of("limit with plus", "/dimensions/customers/commits?limit=%2B5"), "between 1 and 1000"),
        Arguments.of(Named.of("empty limit", "/dimensions/customers/commits?limit="), "between 1 and 1000"),
        Arguments.of(Named.of("malformed escape in a parameter", "/dimensions/customers/keys/42?asOf=%ZZ"),
            "two hex digits"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badRequests")
  void shouldAnswerBadInputWithAJson400(String target, String messagePart) throws Exception {
    QueryServer server = start(QueryServer.builder());
    RawHttp.Reply r = RawHttp.request(server.port(), "GET", target);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    assertThat(r.json().get("error").asText()).isEqualTo("bad_input");
    assertThat(r.json().get("message").asText()).contains(messagePart);
  }

  @Test
  void shouldAnswerRequestsJettyRejectsWithJsonErrors() throws Exception {
    QueryServer server = start(QueryServer.builder());
    RawHttp.Reply tooBig = RawHttp.request(server.port(), "GET", "/health", "X-Big: " + "a".repeat(20_000));
    assertThat(tooBig.status()).isEqualTo(431);
    assertThat(tooBig.header("Content-Type")).startsWith("application/json");
    assertThat(tooBig.json().get("message").asText()).contains("8 KiB");
    RawHttp.Reply garbage = RawHttp.send(server.port(), "127.0.0.1", "NOT HTTP AT ALL\r\n\r\n");
    assertThat(garbage.status()).isEqualTo(400);
    assertThat(garbage.json().get("error").asText()).isEqualTo("bad_input");
  }

  @Test
  void shouldAnswerHeadAndPostWith405AllowingGet() throws Exception {
    QueryServer server = start(QueryServer.builder());
    RawHttp.Reply head = RawHttp.request(server.port(), "HEAD", "/dimensions/customers/keys/42");
    assertThat(head.status()).isEqualTo(405);
    assertThat(head.header("Allow")).isEqualTo("GET");
    RawHttp.Reply post = RawHttp.request(server.port(), "POST", "/health", "Content-Length: 2");
    assertThat(post.status()).isEqualTo(405);
    assertThat(post.json().get("message").asText()).contains("POST is not supported; use GET");
  }

  @Test
  void shouldNotWaitForABodyThatTrickles() throws Exception {
    QueryServer server = start(QueryServer.builder()
        .limits(HttpLimits.DEFAULTS.withRequestTimeout(Duration.ofSeconds(1))));
    Socket s = RawHttp.connect("127.0.0.1", server.port());
    toClose.add(s);
    s.getOutputStream().write(("POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nab")
        .getBytes(StandardCharsets.US_ASCII));
    trickler.scheduleAtFixedRate(() -> {
      try {
        s.getOutputStream().write('a');
      } catch (IOException e) {
        // closed by the server, as expected
      }
    }, 200, 200, TimeUnit.MILLISECONDS);
    // every route is GET: the body is never waited for, the connection ends after the 405
    await().atMost(Duration.ofSeconds(10)).until(() -> RawHttp.closedByServer(s, 100));
  }
}
