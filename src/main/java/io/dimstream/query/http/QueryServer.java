package io.dimstream.query.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.dimstream.config.Column;
import io.dimstream.config.DimensionSpec;
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
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's HTTP endpoint (JDK {@link HttpServer}, JSON): live key lookups, health, Prometheus metrics and the
 * timeline page. Routes, all {@code GET}:
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
 * too). Errors are JSON {@code {"error": ..., "message": ...}}: 400 for a bad key or time, 404 for an unknown
 * route, dimension or key, 405 for other methods, 502 when the owning instance does not answer.
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

  private final Map<String, DimensionEndpoint> dimensions;
  private final Supplier<Health> health;
  private final HttpServer server;
  private final ExecutorService executor;
  private final Forwarder forwarder;
  private final byte[] page;

  private QueryServer(Builder b) throws IOException {
    this.dimensions = Map.copyOf(b.dimensions);
    this.health = b.health;
    this.page = loadPage();
    this.forwarder = new Forwarder(b.forwardTimeout);
    this.server = HttpServer.create(new InetSocketAddress(b.host, b.port), 64);
    AtomicInteger n = new AtomicInteger();
    this.executor = Executors.newFixedThreadPool(b.threads, r -> {
      Thread t = new Thread(r, "dimstream-http-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts serving; returns this. */
  public QueryServer start() {
    server.start();
    LOG.info("Query endpoint listening on http://{}:{}/ for {}", host(), port(), dimensions.keySet());
    return this;
  }

  /** The bound port (the actual one when the builder asked for port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  public String host() {
    return server.getAddress().getHostString();
  }

  /** Stops accepting requests, ends the running ones, and frees the port. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      try {
        if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
          ex.getResponseHeaders().add("Allow", "GET");
          sendError(ex, 405, "method_not_allowed", ex.getRequestMethod() + " is not supported; use GET.");
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
        LOG.error("Query endpoint failed on {} {}", ex.getRequestMethod(), ex.getRequestURI(), e);
        sendError(ex, 500, "internal", "The query failed: " + e.getMessage());
      }
    }
  }

  private void route(HttpExchange ex) throws IOException {
    String rawPath = ex.getRequestURI().getRawPath();
    List<String> seg = new ArrayList<>();
    for (String s : rawPath.split("/")) {
      if (!s.isEmpty()) {
        seg.add(decode(s));
      }
    }
    Map<String, String> query = queryParameters(ex.getRequestURI().getRawQuery());
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

  private void key(HttpExchange ex, DimensionEndpoint dim, String keyText, boolean history, String asOf)
      throws IOException {
    LiveQueries live = dim.live();
    DimensionSpec spec = live.spec();
    BusinessKey key = KeyText.parse(spec, keyText);
    Long at = asOf == null ? null : SequenceTimes.parse(spec, asOf);
    if (ex.getRequestHeaders().getFirst(FORWARDED_HEADER) == null) {
      Optional<LiveQueries.InstanceAddress> owner = live.ownerOf(key);
      if (owner.isPresent()) {
        Forwarder.Answer a = forwarder.get(owner.get(), ex.getRequestURI(), KeyText.format(spec, key));
        ex.getResponseHeaders().add(SERVED_BY_HEADER, owner.get().toString());
        send(ex, a.status(), a.contentType(), a.body());
        return;
      }
    }
    ex.getResponseHeaders().add(SERVED_BY_HEADER, host() + ":" + port());
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
    if (text == null) {
      return 20;
    }
    try {
      return Math.max(1, Math.min(1000, Integer.parseInt(text)));
    } catch (NumberFormatException e) {
      throw QueryErrors.wrapped(QueryException.Reason.BAD_INPUT, "limit must be a whole number between 1 and "
          + "1000, got \"" + text + "\".", null);
    }
  }

  private static QueryException notFoundRoute(String path) {
    return QueryErrors.wrapped(QueryException.Reason.NOT_FOUND, "No route for " + path + ". Routes: /, /health, "
        + "/metrics, /dimensions, /dimensions/{dim}, /dimensions/{dim}/keys/{key}[?asOf=T], "
        + "/dimensions/{dim}/keys/{key}/history, /dimensions/{dim}/commits.", null);
  }

  private static String decode(String s) {
    // '+' is a literal plus in a path, not a space
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
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
      out.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static void sendError(HttpExchange ex, int status, String error, String message) throws IOException {
    ObjectNode n = NODES.objectNode();
    n.put("error", error);
    n.put("message", message);
    sendJson(ex, status, n);
  }

  private static void sendJson(HttpExchange ex, int status, Object body) throws IOException {
    send(ex, status, "application/json", JSON.writeValueAsBytes(body));
  }

  private static void send(HttpExchange ex, int status, String contentType, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    boolean head = "HEAD".equals(ex.getRequestMethod());
    ex.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
    if (!head && body.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
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
    private int threads = 8;
    private Duration forwardTimeout = Duration.ofSeconds(5);
    private final Map<String, DimensionEndpoint> dimensions = new LinkedHashMap<>();
    private Supplier<Health> health = Health::healthy;

    private Builder() {}

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

    public Builder threads(int n) {
      this.threads = n;
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
     */
    public QueryServer build() {
      try {
        return new QueryServer(this);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot listen on " + host + ":" + port + ": " + e.getMessage()
            + ". Choose another port (service.http.port) or stop the process using it.", e);
      }
    }
  }
}
