package io.dimstream.query.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.config.Column;
import io.dimstream.config.DimensionSpec;
import io.dimstream.config.HttpSecurity;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.query.KeyText;
import io.dimstream.query.LiveQueries;
import io.dimstream.query.QueryErrors;
import io.dimstream.query.QueryException;
import io.dimstream.query.SequenceTimes;
import io.dimstream.query.TableCommit;
import io.dimstream.query.VersionRows;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's HTTP endpoint (Jetty, JSON): live key lookups, health, Prometheus metrics and the timeline page.
 * Routes, all {@code GET} (any other method, {@code HEAD} included, is 405):
 *
 * <ul>
 *   <li>{@code /} the timeline page; {@code /health}; {@code /metrics};
 *   <li>{@code /dimensions}, {@code /dimensions/{dim}}: the served dimensions and their columns;
 *   <li>{@code /dimensions/{dim}/keys/{key}}: the current version, or with {@code ?asOf=T} the version valid at T;
 *   <li>{@code /dimensions/{dim}/keys/{key}/history}: every version, oldest first;
 *   <li>{@code /dimensions/{dim}/commits?limit=N}: the table's latest commits, newest first.
 * </ul>
 *
 * <p>{@code {key}} is one path segment in {@link KeyText} form, percent-encoded: {@code 42}, or
 * {@code region%3Deu%2Caccount_no%3D7} for {@code region=eu,account_no=7} (unencoded {@code =} and {@code ,} work
 * too). Errors are JSON {@code {"error": ..., "message": ...}}: 400 for a bad key, time, parameter or
 * percent-encoding (and for a request Jetty cannot parse), 401 without the configured bearer token, 404 for an unknown route, dimension or key, 405 for
 * other methods, 431 for headers over 8 KiB, 502 when the owning instance does not answer.
 *
 * <p>Hostile clients are bounded by {@link HttpLimits}. Jetty reads requests without holding a thread while a
 * client is silent, so slow clients cost a connection each, not a worker; the JDK's {@code HttpServer} reads a
 * request head on a worker thread, and eight clients trickling headers blocked every query.
 *
 * <p>With {@link HttpSecurity} the endpoint speaks TLS, asks every request for the bearer token (401 without it) and
 * client certificates for the handshake; it refuses to bind a non-loopback address without TLS and authentication.
 *
 * <p>When {@link LiveQueries#ownerOf} names another instance, a key request is forwarded there once (a forwarded
 * request is always answered locally, so a stale routing table cannot loop) and its answer relayed.
 */
public final class QueryServer implements AutoCloseable {
  /** Marks a request forwarded by another instance. */
  public static final String FORWARDED_HEADER = "X-Dimstream-Forwarded";
  /** Names the instance that answered a key request (host:port). */
  public static final String SERVED_BY_HEADER = "X-Dimstream-Served-By";

  private static final Logger LOG = LoggerFactory.getLogger(QueryServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String PAGE = "timeline.html";

  /** Jetty's acceptor and selector threads come from the same pool as the request workers. */
  private static final int JETTY_OWN_THREADS = 2;
  private static final int MAX_HEADER_BYTES = 8 * 1024;

  private final Map<String, DimensionEndpoint> dimensions;
  private final Supplier<Health> health;
  private final Server server;
  private final ServerConnector connector;
  private final Forwarder forwarder;
  private final HttpSecurity security;
  /** The whole expected Authorization header, or null when no token is configured. */
  private final byte[] token;
  private final SlowRequestReaper reaper;
  private final long sweepMillis;
  private final byte[] page;
  private Scheduler.Task sweep;

  private QueryServer(Builder b) throws IOException {
    this.dimensions = Map.copyOf(b.dimensions);
    this.health = b.health;
    this.page = loadPage();
    this.security = b.security;
    this.token = security.token() == null ? null : ("Bearer " + security.token()).getBytes(StandardCharsets.UTF_8);
    TlsMaterial tls = security.tlsOn() ? TlsMaterial.load(security.tls()) : null;
    this.forwarder = new Forwarder(b.forwardTimeout, tls == null ? null : tls.clientContext(), security.token());
    HttpLimits limits = b.limits;
    int maxThreads = limits.threads() + JETTY_OWN_THREADS;
    // Jetty wants an unbounded job queue (its own tasks must not be rejected); what waits is bounded by the
    // connection limits instead, since a connection has at most one request in progress
    QueuedThreadPool pool = new QueuedThreadPool(maxThreads, Math.min(4, maxThreads));
    pool.setName("dimstream-http");
    pool.setDaemon(true);
    pool.setReservedThreads(0);
    this.server = new Server(pool);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setRequestHeaderSize(MAX_HEADER_BYTES);
    // let escapes that are not UTF-8 reach UrlText, whose 400 names the URL part; it rejects them just the same
    http.setUriCompliance(UriCompliance.DEFAULT.with("dimstream", UriCompliance.Violation.BAD_UTF8_ENCODING,
        UriCompliance.Violation.TRUNCATED_UTF8_ENCODING));
    if (tls == null) {
      this.connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    } else {
      // SNI host checks would refuse clients that address the instance by IP, as forwarding does
      http.addCustomizer(new SecureRequestCustomizer(false));
      this.connector = new ServerConnector(server, 1, 1, new SslConnectionFactory(sslFactory(tls), "http/1.1"),
          new HttpConnectionFactory(http));
    }
    connector.setHost(b.host);
    connector.setPort(b.port);
    connector.setIdleTimeout(limits.idleTimeout().toMillis());
    this.reaper = new SlowRequestReaper(limits.requestTimeout(), b.clock);
    // a tenth of the timeout: a slow request is closed within 110% of it
    this.sweepMillis = Math.max(50, limits.requestTimeout().toMillis() / 10);
    connector.addEventListener(reaper);
    connector.addEventListener(new PerAddressConnectionLimit(limits.maxConnectionsPerAddress()));
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
    server.setErrorHandler(new JsonErrorHandler());
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        QueryServer.this.handle(new Exchange(request, response, callback));
        return true;
      }
    });
    server.setStopTimeout(0);
    connector.open();
  }

  private static SslContextFactory.Server sslFactory(TlsMaterial tls) {
    SslContextFactory.Server ssl = new SslContextFactory.Server();
    ssl.setKeyStore(tls.identity);
    ssl.setKeyManagerPassword(new String(tls.keyPassword));
    if (tls.clientCas != null) {
      ssl.setTrustStore(tls.clientCas);
      ssl.setNeedClientAuth(true);
    }
    return ssl;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts serving (and checking for slow requests); returns this. */
  public QueryServer start() {
    try {
      server.start();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot start the query endpoint on " + host() + ":" + port() + ": "
          + e.getMessage(), e);
    }
    sweep = server.getScheduler().schedule(this::sweepAndReschedule, sweepMillis, TimeUnit.MILLISECONDS);
    LOG.info("Query endpoint listening on {}://{}:{}/ for {} ({})", scheme(), host(), port(), dimensions.keySet(),
        security.describe());
    if (security.insecureBindAllowed() && HttpSecurity.NONE.exposureProblem(host()).isPresent()
        && (!security.tlsOn() || !security.authenticates())) {
      LOG.warn("The query endpoint on {} is not loopback and lacks TLS or authentication (--http-insecure-bind): "
          + "keep its port private (a port mapping to the host's loopback, a firewall or an authenticating proxy)",
          host());
    }
    return this;
  }

  private void sweepAndReschedule() {
    try {
      reaper.sweep();
    } finally {
      if (server.isRunning()) {
        sweep = server.getScheduler().schedule(this::sweepAndReschedule, sweepMillis, TimeUnit.MILLISECONDS);
      }
    }
  }

  /** The bound port (the actual one when the builder asked for port 0). */
  public int port() {
    return connector.getLocalPort();
  }

  public String host() {
    return connector.getHost();
  }

  /** {@code https} with TLS on, else {@code http}. */
  public String scheme() {
    return security.tlsOn() ? "https" : "http";
  }

  /** Stops accepting requests, ends the running ones, and frees the port. */
  @Override
  public void close() {
    if (sweep != null) {
      sweep.cancel();
    }
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("The query endpoint on {}:{} did not stop cleanly: {}", host(), port(), e.toString());
    }
  }

  /** One request with its response, in the shape the routes below use. */
  private record Exchange(Request request, Response response, Callback callback) {
    String method() {
      return request.getMethod();
    }

    String rawPath() {
      return request.getHttpURI().getPath();
    }

    String rawQuery() {
      return request.getHttpURI().getQuery();
    }

    URI uri() {
      return request.getHttpURI().toURI();
    }

    String header(String name) {
      return request.getHeaders().get(name);
    }

    void addHeader(String name, String value) {
      response.getHeaders().add(name, value);
    }
  }

  private void handle(Exchange ex) {
    try {
      try {
        if (token != null && !authorized(ex.header("Authorization"))) {
          ex.addHeader("WWW-Authenticate", "Bearer realm=\"dimstream\"");
          sendError(ex, 401, "unauthorized", "This endpoint needs a bearer token: send 'Authorization: Bearer "
              + "<token>' with the token of the spec's service.http.auth.");
          return;
        }
        if (!"GET".equals(ex.method())) {
          // HEAD too: no route is cheaper without its body, and docs/reference/http.md promises GET only
          ex.addHeader("Allow", "GET");
          sendError(ex, 405, "method_not_allowed", ex.method() + " is not supported; use GET.");
          return;
        }
        route(ex);
      } catch (QueryException e) {
        int status = switch (e.reason()) {
          case BAD_INPUT -> 400;
          case NOT_FOUND -> 404;
          case UNAVAILABLE -> 502;
        };
        sendError(ex, status, e.reason().name().toLowerCase(java.util.Locale.ROOT), e.getMessage());
      } catch (RuntimeException e) {
        LOG.error("Query endpoint failed on {} {}", ex.method(), ex.request().getHttpURI(), e);
        sendError(ex, 500, "internal", "The query failed: " + e.getMessage());
      }
    } catch (RuntimeException | IOException e) {
      ex.callback().failed(e);
    }
  }

  /** Compares in constant time: how long a refusal takes must not tell how much of a guess was right. */
  private boolean authorized(String header) {
    return header != null && MessageDigest.isEqual(token, header.getBytes(StandardCharsets.UTF_8));
  }

  private void route(Exchange ex) throws IOException {
    String rawPath = ex.rawPath();
    List<String> seg = new ArrayList<>();
    for (String s : rawPath.split("/")) {
      if (!s.isEmpty()) {
        seg.add(UrlText.pathSegment(s));
      }
    }
    Map<String, String> query = queryParameters(ex.rawQuery());
    if (seg.isEmpty()) {
      send(ex, 200, "text/html; charset=utf-8", page);
      return;
    }
    if (seg.size() == 1 && seg.get(0).equals("health")) {
      Health h = health.get();
      ObjectNode n = NODES.objectNode();
      n.put("status", h.up() ? "UP" : "DOWN");
      ArrayNode dims = n.putArray("dimensions");
      dimensions.keySet().stream().sorted().forEach(dims::add);
      ObjectNode details = n.putObject("details");
      h.details().forEach(details::put);
      sendJson(ex, h.up() ? 200 : 503, n);
      return;
    }
    if (seg.size() == 1 && seg.get(0).equals("metrics")) {
      List<DimensionEndpoint> dims = dimensions.values().stream()
          .sorted(java.util.Comparator.comparing(DimensionEndpoint::name)).toList();
      send(ex, 200, PrometheusText.CONTENT_TYPE, PrometheusText.render(dims).getBytes(StandardCharsets.UTF_8));
      return;
    }
    if (!seg.get(0).equals("dimensions")) {
      throw notFoundRoute(rawPath);
    }
    if (seg.size() == 1) {
      ArrayNode all = NODES.arrayNode();
      dimensions.values().stream().sorted(java.util.Comparator.comparing(DimensionEndpoint::name))
          .forEach(d -> all.add(describe(d.live().spec())));
      ObjectNode n = NODES.objectNode();
      n.set("dimensions", all);
      sendJson(ex, 200, n);
      return;
    }
    DimensionEndpoint dim = dimensions.get(seg.get(1));
    if (dim == null) {
      throw QueryErrors.unknownDimension(seg.get(1), dimensions.keySet().stream().sorted().toList());
    }
    if (seg.size() == 2) {
      sendJson(ex, 200, describe(dim.live().spec()));
    } else if (seg.size() == 3 && seg.get(2).equals("commits")) {
      sendJson(ex, 200, commits(dim, limit(query.get("limit"))));
    } else if (seg.size() >= 4 && seg.size() <= 5 && seg.get(2).equals("keys")
        && (seg.size() == 4 || seg.get(4).equals("history"))) {
      key(ex, dim, seg.get(3), seg.size() == 5, query.get("asOf"));
    } else {
      throw notFoundRoute(rawPath);
    }
  }

  private void key(Exchange ex, DimensionEndpoint dim, String keyText, boolean history, String asOf)
      throws IOException {
    LiveQueries live = dim.live();
    DimensionSpec spec = live.spec();
    BusinessKey key = KeyText.parse(spec, keyText);
    Long at = asOf == null ? null : SequenceTimes.parse(spec, asOf);
    if (ex.header(FORWARDED_HEADER) == null) {
      Optional<LiveQueries.InstanceAddress> owner = live.ownerOf(key);
      if (owner.isPresent()) {
        Forwarder.Answer a = forwarder.get(owner.get(), ex.uri(), KeyText.format(spec, key));
        if (a.status() == 401 || a.status() == 403) {
          // this client was authenticated here: the owner refused this instance's credentials, not the client's
          throw QueryErrors.ownerRefusedForward(KeyText.format(spec, key), owner.get().toString(), a.status());
        }
        ex.addHeader(SERVED_BY_HEADER, owner.get().toString());
        send(ex, a.status(), a.contentType(), a.body());
        return;
      }
    }
    ex.addHeader(SERVED_BY_HEADER, host() + ":" + port());
    VersionRows rows = new VersionRows(spec);
    String shown = KeyText.format(spec, key);
    if (history) {
      List<Version> versions = live.history(key);
      if (versions.isEmpty()) {
        throw QueryErrors.noVersion(spec, shown, "at all");
      }
      ObjectNode n = NODES.objectNode();
      n.put("dimension", spec.name());
      n.set("key", rows.keyJson(key));
      ArrayNode attrs = n.putArray("attributes");
      spec.attributeColumns().forEach(c -> attrs.add(c.name()));
      ArrayNode tracked = n.putArray("tracked");
      spec.attributeColumns().stream().filter(c -> spec.isTracked(c.name())).forEach(c -> tracked.add(c.name()));
      ArrayNode vs = n.putArray("versions");
      versions.forEach(v -> vs.add(rows.json(v)));
      sendJson(ex, 200, n);
      return;
    }
    Optional<Version> v = at == null ? live.current(key) : live.asOf(key, at);
    if (v.isEmpty()) {
      throw QueryErrors.noVersion(spec, shown, at == null ? "that is current (unknown or deleted key)"
          : "valid at " + asOf);
    }
    sendJson(ex, 200, rows.json(v.get()));
  }

  private static ObjectNode describe(DimensionSpec spec) {
    ObjectNode n = NODES.objectNode();
    n.put("name", spec.name());
    ArrayNode key = n.putArray("key");
    spec.key().forEach(key::add);
    ObjectNode seq = n.putObject("sequence");
    Column first = spec.sequenceColumns().get(0);
    seq.put("column", first.name());
    seq.put("type", first.type().toString());
    ArrayNode attrs = n.putArray("attributes");
    for (Column c : spec.attributeColumns()) {
      ObjectNode a = attrs.addObject();
      a.put("name", c.name());
      a.put("type", c.type().toString());
      a.put("tracked", spec.isTracked(c.name()));
    }
    ObjectNode out = n.putObject("output");
    out.put("validFrom", spec.output().validFrom());
    out.put("validTo", spec.output().validTo());
    out.put("isCurrent", spec.output().isCurrent());
    return n;
  }

  private static ObjectNode commits(DimensionEndpoint dim, int limit) {
    ObjectNode n = NODES.objectNode();
    n.put("dimension", dim.name());
    ArrayNode list = n.putArray("commits");
    for (TableCommit c : dim.commits().latest(limit)) {
      ObjectNode o = list.addObject();
      o.put("version", c.version());
      o.put("timestamp", c.timestamp().toString());
      o.put("operation", c.operation());
      ObjectNode m = o.putObject("operationMetrics");
      new java.util.TreeMap<>(c.operationMetrics()).forEach(m::put);
    }
    return n;
  }

  private static int limit(String text) {
    return text == null ? 20 : (int) wholeNumber("limit", text, 1, 1000);
  }

  /** A numeric parameter in ASCII digits within [min, max]; anything else is 400 naming the range. */
  private static long wholeNumber(String parameter, String text, long min, long max) {
    if (!text.matches("-?[0-9]{1,18}")) {
      throw QueryErrors.outOfRange(parameter, text, min, max);
    }
    long n = Long.parseLong(text);
    if (n < min || n > max) {
      throw QueryErrors.outOfRange(parameter, text, min, max);
    }
    return n;
  }

  private static QueryException notFoundRoute(String path) {
    return QueryErrors.wrapped(QueryException.Reason.NOT_FOUND, "No route for " + path + ". Routes: /, /health, "
        + "/metrics, /dimensions, /dimensions/{dim}, /dimensions/{dim}/keys/{key}[?asOf=T], "
        + "/dimensions/{dim}/keys/{key}/history, /dimensions/{dim}/commits.", null);
  }

  private static Map<String, String> queryParameters(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(UrlText.queryPart(k), UrlText.queryPart(v));
    }
    return out;
  }

  /** The JSON body of every error answer: {@code {"error": code, "message": what, why, how to fix}}. */
  static String errorJson(String error, String message) {
    ObjectNode n = NODES.objectNode();
    n.put("error", error);
    n.put("message", message);
    return n.toString();
  }

  private static void sendError(Exchange ex, int status, String error, String message) {
    send(ex, status, "application/json", errorJson(error, message).getBytes(StandardCharsets.UTF_8));
  }

  private static void sendJson(Exchange ex, int status, Object body) throws IOException {
    send(ex, status, "application/json", JSON.writeValueAsBytes(body));
  }

  private static void send(Exchange ex, int status, String contentType, byte[] body) {
    Response response = ex.response();
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    // completes asynchronously: a client that reads slowly holds no thread, only the idle timeout's clock
    response.write(true, ByteBuffer.wrap(body), ex.callback());
  }

  private static byte[] loadPage() {
    try (InputStream in = QueryServer.class.getResourceAsStream(PAGE)) {
      if (in == null) {
        throw new IllegalStateException("the timeline page " + PAGE + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Configures a {@link QueryServer}. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 8080;
    private HttpLimits limits = HttpLimits.DEFAULTS;
    private Clock clock = Clock.systemUTC();
    private Duration forwardTimeout = Duration.ofSeconds(5);
    private final Map<String, DimensionEndpoint> dimensions = new LinkedHashMap<>();
    private Supplier<Health> health = Health::healthy;
    private HttpSecurity security = HttpSecurity.NONE;

    private Builder() {}

    /**
     * TLS and authentication; default none, which {@link #build()} allows on a loopback address only.
     */
    public Builder security(HttpSecurity s) {
      this.security = s;
      return this;
    }

    /** The address to bind; default 127.0.0.1:8080. Port 0 picks a free port (see {@link QueryServer#port()}). */
    public Builder bind(String bindHost, int bindPort) {
      this.host = bindHost;
      this.port = bindPort;
      return this;
    }

    /** Serves a dimension under its spec name; a second one with the same name replaces the first. */
    public Builder dimension(DimensionEndpoint endpoint) {
      dimensions.put(endpoint.name(), endpoint);
      return this;
    }

    public Builder health(Supplier<Health> supplier) {
      this.health = supplier;
      return this;
    }

    /** Timeouts, pool and connection limits; default {@link HttpLimits#DEFAULTS}. */
    public Builder limits(HttpLimits l) {
      this.limits = l;
      return this;
    }

    /** The clock the request timeout is measured with. */
    public Builder clock(Clock c) {
      this.clock = c;
      return this;
    }

    /** How long a forwarded request may take before the answer is 502. Default 5 s. */
    public Builder forwardTimeout(Duration timeout) {
      this.forwardTimeout = timeout;
      return this;
    }

    /**
     * Binds the port (not yet serving: call {@link QueryServer#start()}).
     *
     * @throws UncheckedIOException when the port cannot be bound (e.g. in use)
     * @throws IllegalArgumentException when the address is not loopback and TLS or authentication is missing, or the
     *     TLS material cannot be read
     */
    public QueryServer build() {
      security.exposureProblem(host).ifPresent(problem -> {
        throw new IllegalArgumentException("Refusing to start: " + problem + ". Fix: " + HttpSecurity.EXPOSURE_FIX);
      });
      try {
        return new QueryServer(this);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot listen on " + host + ":" + port + ": " + e.getMessage()
            + ". Choose another port (service.http.port) or stop the process using it.", e);
      }
    }
  }
}
