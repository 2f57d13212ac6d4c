package io.dimstream.storage;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An HTTP proxy on 127.0.0.1 in front of Azurite that passes every request on, except those a test picks by method
 * and blob name, to which it does what Azure does on a bad day: refuse (403), throttle (503 ServerBusy, nothing
 * stored), store and then answer 500, store and answer late, or break a download half-way.
 */
public final class AzureFaultProxy implements AutoCloseable {
  /** Request headers the JDK client sets itself or refuses to pass on (Date is signed: it is passed on). */
  private static final Set<String> HOP = Set.of("host", "connection", "content-length", "expect", "upgrade",
      "transfer-encoding", "keep-alive");
  /** Response headers the proxy's own server sets. */
  private static final Set<String> SERVER_SET = Set.of("date", "content-length", "transfer-encoding", "connection",
      "keep-alive");
  public static final long STALL_MILLIS = 3_000;

  public enum Fault {
    /** 403 AuthorizationFailure, nothing stored. */
    REFUSE,
    /** 503 ServerBusy, nothing stored. */
    THROTTLE,
    /** Passed on (stored), then answered with a 500: the writer cannot know it landed. */
    STORE_THEN_FAIL,
    /** Passed on (stored), then answered only after {@link #STALL_MILLIS}: the writer times out first. */
    STORE_THEN_STALL,
    /** The download breaks after half of the bytes. */
    BREAK_DOWNLOAD
  }

  private record Rule(String method, Predicate<String> blobs, AtomicInteger left, Fault fault) {}

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final String target;
  private volatile Rule rule;
  private final AtomicInteger injected = new AtomicInteger();

  /** A proxy of {@code azurite}'s Blob service. */
  public AzureFaultProxy(AzuriteServer azurite) throws IOException {
    this.target = azurite.blobEndpoint().substring(0, azurite.blobEndpoint().lastIndexOf('/'));
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** The Blob endpoint of the development account through this proxy. */
  public String blobEndpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + AzuriteServer.ACCOUNT;
  }

  /** Settings that reach Azurite through this proxy with the development account's key. */
  public StorageSettings settings() {
    return StorageSettings.defaults().withAzure(AzureSettings.defaults().withAccount(AzuriteServer.ACCOUNT)
        .withEndpoint(blobEndpoint()).withAccountKey(AzuriteServer.KEY));
  }

  /** What to do to the next {@code count} {@code method} requests on blobs whose name {@code blobs} matches. */
  public void on(String method, Predicate<String> blobs, int count, Fault fault) {
    rule = new Rule(method, blobs, new AtomicInteger(count), fault);
  }

  /** Faults injected so far. */
  public int injected() {
    return injected.get();
  }

  public void clear() {
    rule = null;
  }

  private Fault faultFor(HttpExchange ex) {
    Rule r = rule;
    if (r == null || !r.method.equals(ex.getRequestMethod()) || !r.blobs.test(ex.getRequestURI().getPath())) {
      return null;
    }
    if (r.left.getAndDecrement() <= 0) {
      return null;
    }
    injected.incrementAndGet();
    return r.fault;
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body = ex.getRequestBody().readAllBytes();
      Fault fault = faultFor(ex);
      if (fault == Fault.REFUSE) {
        error(ex, 403, "AuthorizationFailure");
        return;
      }
      if (fault == Fault.THROTTLE) {
        error(ex, 503, "ServerBusy");
        return;
      }
      HttpResponse<byte[]> answer = forward(ex, body);
      if (fault == Fault.STORE_THEN_FAIL) {
        error(ex, 500, "InternalError");
        return;
      }
      if (fault == Fault.STORE_THEN_STALL) {
        Thread.sleep(STALL_MILLIS);
      }
      for (Map.Entry<String, List<String>> h : answer.headers().map().entrySet()) {
        if (!SERVER_SET.contains(h.getKey().toLowerCase(Locale.ROOT)) && !h.getKey().startsWith(":")) {
          ex.getResponseHeaders().put(h.getKey(), h.getValue());
        }
      }
      byte[] bytes = answer.body();
      boolean noBody = ex.getRequestMethod().equals("HEAD") || answer.statusCode() == 204
          || answer.statusCode() == 304;
      if (noBody) {
        answer.headers().firstValue("content-length").ifPresent(l -> ex.getResponseHeaders().set("Content-Length", l));
        ex.sendResponseHeaders(answer.statusCode(), -1);
        return;
      }
      ex.sendResponseHeaders(answer.statusCode(), bytes.length == 0 ? -1 : bytes.length);
      OutputStream out = ex.getResponseBody();
      if (fault == Fault.BREAK_DOWNLOAD) {
        out.write(bytes, 0, bytes.length / 2);
        out.flush();
        // the connection is cut: closing the exchange short of its Content-Length drops it
        return;
      }
      out.write(bytes);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private HttpResponse<byte[]> forward(HttpExchange ex, byte[] body) throws IOException, InterruptedException {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(target + ex.getRequestURI().getRawPath()
        + (ex.getRequestURI().getRawQuery() == null ? "" : "?" + ex.getRequestURI().getRawQuery())))
        .method(ex.getRequestMethod(), body.length == 0 && !ex.getRequestMethod().equals("PUT")
            ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
      if (!HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
        for (String v : h.getValue()) {
          req.header(h.getKey(), v);
        }
      }
    }
    return client.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static void error(HttpExchange ex, int status, String code) throws IOException {
    byte[] xml = ("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>" + code + "</Code><Message>injected by "
        + "the test</Message></Error>").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("x-ms-error-code", code);
    ex.getResponseHeaders().set("Content-Type", "application/xml");
    ex.sendResponseHeaders(status, xml.length);
    ex.getResponseBody().write(xml);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
