package io.dimstream.query.http;

import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static io.dimstream.query.QueryFixtures.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.query.LiveQueries;
import io.dimstream.query.TableCommit;
import io.dimstream.spec.HttpSecurity;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The endpoint over real TLS: tokens, client certificates, forwarding between two secured instances. */
class QueryServerSecurityTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "s3cret-token-7f3a";
  private static final List<Version> ROWS = List.of(customer(42, "2026-01-05T00:00:00Z", null, "Lyon", "gold", "Ann"));

  @TempDir
  static Path dir;
  private static TestCertificates.Identity server;
  private static TestCertificates.Identity stranger;

  private final List<QueryServer> servers = new ArrayList<>();

  @BeforeAll
  static void certificates() throws Exception {
    server = TestCertificates.create(dir, "endpoint");
    stranger = TestCertificates.create(dir, "stranger");
  }

  @AfterEach
  void stop() {
    servers.forEach(QueryServer::close);
  }

  private QueryServer start(HttpSecurity security, LiveQueries live) {
    QueryServer s = QueryServer.builder().bind("127.0.0.1", 0).security(security)
        .dimension(new DimensionEndpoint(live, limit -> List.<TableCommit>of(), ServiceMetrics.NONE))
        .build().start();
    servers.add(s);
    return s;
  }

  private static HttpSecurity.Tls pem(Path clientCa) {
    return new HttpSecurity.Tls(server.certPem(), server.keyPem(), null, null, clientCa);
  }

  private static HttpResponse<String> get(SSLContext tls, QueryServer s, String path, String authorization)
      throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + s.port() + path)).GET();
    if (authorization != null) {
      req.header("Authorization", authorization);
    }
    return client.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldAnswer401WithoutTheRightTokenAnd200WithIt() throws Exception {
    QueryServer s = start(new HttpSecurity(pem(null), TOKEN), new ListLiveQueries(CUSTOMERS, ROWS));
    SSLContext tls = TestCertificates.client(server, null);

    for (String wrong : new String[] {null, "Bearer wrong-token", "Bearer " + TOKEN + "x", TOKEN, "Basic " + TOKEN}) {
      HttpResponse<String> r = get(tls, s, "/dimensions/customers/keys/42", wrong);
      assertThat(r.statusCode()).as("Authorization: %s", wrong).isEqualTo(401);
      assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
      JsonNode body = JSON.readTree(r.body());
      assertThat(body.get("error").asText()).isEqualTo("unauthorized");
      assertThat(body.get("message").asText()).contains("Authorization: Bearer").doesNotContain(TOKEN);
    }
    assertThat(get(tls, s, "/health", null).statusCode()).as("every route needs the token").isEqualTo(401);

    HttpResponse<String> ok = get(tls, s, "/dimensions/customers/keys/42", "Bearer " + TOKEN);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(ok.body()).get("city").asText()).isEqualTo("Lyon");
  }

  @Test
  void shouldNotAnswerAPlainHttpRequestOnTheTlsPort() throws Exception {
    QueryServer s = start(new HttpSecurity(pem(null), TOKEN), new ListLiveQueries(CUSTOMERS, ROWS));
    HttpRequest plain = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port()
        + "/dimensions/customers/keys/42")).header("Authorization", "Bearer " + TOKEN).GET().build();
    HttpResponse<String> r = null;
    try {
      r = HttpClient.newHttpClient().send(plain, HttpResponse.BodyHandlers.ofString());
    } catch (IOException refused) {
      // the TLS engine drops a connection that does not start with a handshake
    }
    assertThat(r == null || (r.statusCode() >= 400 && !r.body().contains("Lyon")))
        .as("a plain request is refused, not answered: %s", r == null ? "" : r.statusCode() + " " + r.body()).isTrue();
  }

  @Test
  void shouldFailTheHandshakeForAClientWithoutATrustedCertificate() throws Exception {
    HttpSecurity.Tls pkcs12 = new HttpSecurity.Tls(null, null, server.keystore(), TestCertificates.PASSWORD,
        server.certPem());
    QueryServer s = start(new HttpSecurity(pkcs12, null), new ListLiveQueries(CUSTOMERS, ROWS));

    assertThat(catchThrowable(() -> get(TestCertificates.client(server, null), s, "/dimensions/customers/keys/42", null)))
        .as("no client certificate").isInstanceOf(IOException.class).satisfies(QueryServerSecurityTest::tlsFailure);
    assertThat(catchThrowable(() -> get(TestCertificates.client(server, stranger), s, "/dimensions/customers/keys/42",
        null))).as("a certificate the client CA did not sign").isInstanceOf(IOException.class)
        .satisfies(QueryServerSecurityTest::tlsFailure);

    HttpResponse<String> ok = get(TestCertificates.client(server, server), s, "/dimensions/customers/keys/42", null);
    assertThat(ok.statusCode()).isEqualTo(200);
  }

  private static void tlsFailure(Throwable t) {
    Throwable c = t;
    while (c != null && !(c instanceof SSLException)) {
      c = c.getCause();
    }
    // with TLS 1.3 the server's alert may arrive as the connection closing before the response
    assertThat(c != null || String.valueOf(t.getMessage()).contains("closed")).as("%s", t).isTrue();
  }

  @Test
  void shouldForwardToTheOwnerOverTlsWithTheTokenAndClientCertificate() throws Exception {
    HttpSecurity security = new HttpSecurity(pem(server.certPem()), TOKEN);
    List<Version> bRows = List.of(customer(42, "2026-01-05T00:00:00Z", null, "Lyon-on-B", "gold", "Ann"));
    QueryServer b = start(security, new ListLiveQueries(CUSTOMERS, bRows));
    LiveQueries.InstanceAddress bAddress = new LiveQueries.InstanceAddress("127.0.0.1", b.port());
    QueryServer a = start(security, new ListLiveQueries(CUSTOMERS, ROWS,
        k -> k.equals(BusinessKey.of(42L)) ? Optional.of(bAddress) : Optional.empty()));

    HttpResponse<String> r = get(TestCertificates.client(server, server), a, "/dimensions/customers/keys/42",
        "Bearer " + TOKEN);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(JSON.readTree(r.body()).get("city").asText()).isEqualTo("Lyon-on-B");
    assertThat(r.headers().firstValue(QueryServer.SERVED_BY_HEADER)).contains(bAddress.toString());
  }

  @Test
  void shouldAnswer502NotTheOwners401WhenTheOwnerRefusesTheForwardingInstancesToken() throws Exception {
    List<Version> bRows = List.of(customer(42, "2026-01-05T00:00:00Z", null, "Lyon-on-B", "gold", "Ann"));
    QueryServer b = start(new HttpSecurity(pem(server.certPem()), "another-" + TOKEN), new ListLiveQueries(CUSTOMERS,
        bRows));
    LiveQueries.InstanceAddress bAddress = new LiveQueries.InstanceAddress("127.0.0.1", b.port());
    QueryServer a = start(new HttpSecurity(pem(server.certPem()), TOKEN), new ListLiveQueries(CUSTOMERS, ROWS,
        k -> k.equals(BusinessKey.of(42L)) ? Optional.of(bAddress) : Optional.empty()));

    HttpResponse<String> r = get(TestCertificates.client(server, server), a, "/dimensions/customers/keys/42",
        "Bearer " + TOKEN);
    assertThat(r.statusCode()).as("the client's own credentials were right: %s", r.body()).isEqualTo(502);
    assertThat(JSON.readTree(r.body()).get("message").asText()).contains("refused this instance's credentials")
        .contains("service.http.auth").doesNotContain(TOKEN);
    assertThat(r.body()).doesNotContain("Lyon-on-B");
  }

  @Test
  void shouldNotForwardWithAClientCertificateTheOwnerDoesNotTrust() throws Exception {
    List<Version> bRows = List.of(customer(42, "2026-01-05T00:00:00Z", null, "Lyon-on-B", "gold", "Ann"));
    QueryServer b = start(new HttpSecurity(pem(server.certPem()), TOKEN), new ListLiveQueries(CUSTOMERS, bRows));
    LiveQueries.InstanceAddress bAddress = new LiveQueries.InstanceAddress("127.0.0.1", b.port());
    // A presents the stranger's certificate when it forwards, which B's client CA did not sign
    HttpSecurity.Tls strangersTls = new HttpSecurity.Tls(stranger.certPem(), stranger.keyPem(), null, null,
        server.certPem());
    QueryServer a = start(new HttpSecurity(strangersTls, TOKEN), new ListLiveQueries(CUSTOMERS, ROWS,
        k -> k.equals(BusinessKey.of(42L)) ? Optional.of(bAddress) : Optional.empty()));

    HttpResponse<String> r = get(TestCertificates.client(stranger, server), a, "/dimensions/customers/keys/42",
        "Bearer " + TOKEN);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
    assertThat(JSON.readTree(r.body()).get("message").asText()).contains("owned by the instance " + bAddress);
    assertThat(r.body()).doesNotContain("Lyon-on-B");
  }

  @Test
  void shouldRefuseToBindANonLoopbackAddressWithoutTlsAndAuthentication() {
    for (HttpSecurity unsafe : List.of(HttpSecurity.NONE, new HttpSecurity(null, TOKEN), new HttpSecurity(pem(null),
        null))) {
      assertThatThrownBy(() -> QueryServer.builder().bind("0.0.0.0", 0).security(unsafe).build())
          .as("%s", unsafe).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not a loopback address").hasMessageContaining("service.http.tls")
          .hasMessageContaining("service.http.auth.token_env");
    }
    // the refusal comes before the port is bound; the accepted settings are checked without binding a public address
    assertThat(new HttpSecurity(pem(null), TOKEN).exposureProblem("0.0.0.0")).isEmpty();
    assertThat(new HttpSecurity(pem(server.certPem()), null).exposureProblem("0.0.0.0")).isEmpty();
    assertThat(HttpSecurity.NONE.allowingInsecureBind().exposureProblem("0.0.0.0"))
        .as("the operator's explicit --http-insecure-bind").isEmpty();
  }

  @Test
  void shouldNeverLogTheTokenOrKeystorePassword() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(QueryServer.class);
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.start();
    logger.addAppender(seen);
    try {
      HttpSecurity.Tls pkcs12 = new HttpSecurity.Tls(null, null, server.keystore(), TestCertificates.PASSWORD, null);
      HttpSecurity security = new HttpSecurity(pkcs12, TOKEN);
      QueryServer s = start(security, new ListLiveQueries(CUSTOMERS, ROWS));
      get(TestCertificates.client(server, null), s, "/dimensions/customers/keys/42", "Bearer " + TOKEN);
      s.close();
      assertThat(seen.list).isNotEmpty();
      for (ILoggingEvent e : seen.list) {
        assertThat(e.getFormattedMessage()).doesNotContain(TOKEN).doesNotContain(TestCertificates.PASSWORD);
      }
      assertThat(security.toString()).doesNotContain(TOKEN).doesNotContain(TestCertificates.PASSWORD)
          .contains("***");
    } finally {
      logger.detachAppender(seen);
    }
  }
}
