package io.dimstream.query.http;

import io.dimstream.query.KeyText;
import io.dimstream.query.LiveQueries;
import io.dimstream.spec.HttpSecurity;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
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
 * This class owns the server (connectors, TLS, limits, lifecycle); {@link Router} dispatches each request to its
 * handler. Routes, all {@code GET} (any other method, {@code HEAD} included, is 405):
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
  private static final String PAGE = "timeline.html";

  /** Jetty's acceptor and selector threads come from the same pool as the request workers. */
  private static final int JETTY_OWN_THREADS = 2;
  private static final int MAX_HEADER_BYTES = 8 * 1024;

  /** Live: dimensions hosted in one process register as they start and leave as they stop or fail. */
  private final Map<String, DimensionEndpoint> dimensions;
  /** The health of each dimension hosted in one process, registered or not yet serving; empty for one dimension. */
  private final Map<String, Supplier<Health>> dimensionHealth = new ConcurrentSkipListMap<>();
  private final Server server;
  private final ServerConnector connector;
  private final HttpSecurity security;
  private final SlowRequestReaper reaper;
  private final long sweepMillis;
  private Scheduler.Task sweep;

  private QueryServer(Builder b) throws IOException {
    this.dimensions = new ConcurrentSkipListMap<>(b.dimensions);
    this.security = b.security;
    TlsMaterial tls = security.tlsOn() ? TlsMaterial.load(security.tls()) : null;
    Forwarder forwarder = new Forwarder(b.forwardTimeout, tls == null ? null : tls.clientContext(), security.token());
    Router router = new Router(security.token(), loadPage(), new HealthHandler(b.health, dimensions.keySet(),
        dimensionHealth), new MetricsHandler(dimensions.values()), new DimensionsHandler(dimensions),
        new KeyHandler(forwarder, () -> host() + ":" + port()), new CommitsHandler());
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
        router.handle(new Exchange(request, response, callback));
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

  /**
   * Serves {@code endpoint} from now on (a dimension hosted with others in one process, started after the endpoint),
   * with its health in {@code /health}.
   */
  public void register(DimensionEndpoint endpoint, Supplier<Health> health) {
    dimensionHealth.put(endpoint.name(), health);
    dimensions.put(endpoint.name(), endpoint);
  }

  /**
   * Stops serving the dimension {@code name}; {@code /health} reports {@code health} for it from now on (why it
   * stopped), or nothing when null.
   */
  public void unregister(String name, Health health) {
    dimensions.remove(name);
    if (health == null) {
      dimensionHealth.remove(name);
    } else {
      dimensionHealth.put(name, () -> health);
    }
  }

  /** Reports {@code health} for the dimension {@code name}, which is not served (it could not start). */
  public void reportHealth(String name, Supplier<Health> health) {
    dimensionHealth.put(name, health);
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
