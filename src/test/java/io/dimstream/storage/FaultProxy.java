package io.dimstream.storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * An HTTP/1.1 proxy on 127.0.0.1 in front of a real object store server (an S3 server, or Azurite) that does to
 * chosen requests what networks and busy stores do: refuses (403), throttles (503, 429), fails (500) before or after
 * the server stored the object, loses the answer of a request the server carried out (connection dropped, or
 * answered too late), cuts a download short. Everything else passes through unchanged. One request per connection
 * ({@code Connection: close}), so a fault never leaves a half-read connection behind. Its own error answers speak
 * the store's dialect (S3's error XML, or Azure's {@code x-ms-error-code}). It counts the requests it forwarded by
 * method.
 */
public final class FaultProxy implements AutoCloseable {
  /** How the store behind the proxy words its errors. */
  public enum Dialect {
    S3("AccessDenied", "SlowDown", "TooManyRequests", "InternalError"),
    AZURE("AuthorizationFailure", "ServerBusy", "TooManyRequests", "InternalError");

    final String refused;
    final String busy;
    final String tooMany;
    final String internal;

    Dialect(String refused, String busy, String tooMany, String internal) {
      this.refused = refused;
      this.busy = busy;
      this.tooMany = tooMany;
      this.internal = internal;
    }
  }

  public enum Fault {
    /** 403 (AccessDenied, AuthorizationFailure), not forwarded. */
    REFUSE,
    /** 503 (SlowDown, ServerBusy), not forwarded. */
    SLOW_DOWN,
    /** 429 Too Many Requests, not forwarded. */
    TOO_MANY_REQUESTS,
    /** 500 InternalError, not forwarded. */
    INTERNAL_ERROR,
    /** Forwarded (the server carries it out), then answered with a 500. */
    FORWARD_THEN_INTERNAL_ERROR,
    /** Forwarded, then the connection is closed without an answer. */
    FORWARD_THEN_DROP,
    /** Forwarded, then the answer is held back for {@link #STALL_MILLIS}: the client times out first. */
    FORWARD_THEN_STALL,
    /** Forwarded; the answer breaks off after half of its body. */
    CUT_BODY
  }

  public static final long STALL_MILLIS = 4_000;

  private record Rule(String method, Predicate<String> path, AtomicInteger left, Fault fault) {}

  private final Dialect dialect;
  private final String upstreamHost;
  private final int upstreamPort;
  private final ServerSocket server;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fault-proxy");
    t.setDaemon(true);
    return t;
  });
  private final List<Rule> rules = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Map<String, AtomicLong> forwarded = new ConcurrentHashMap<>();
  private final AtomicLong injected = new AtomicLong();

  /** A proxy of the S3 server at {@code upstreamHost:upstreamPort}. */
  public FaultProxy(String upstreamHost, int upstreamPort) throws IOException {
    this(Dialect.S3, upstreamHost, upstreamPort);
  }

  public FaultProxy(Dialect dialect, String upstreamHost, int upstreamPort) throws IOException {
    this.dialect = dialect;
    this.upstreamHost = upstreamHost;
    this.upstreamPort = upstreamPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(this::accept);
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** The next {@code count} requests with {@code method} whose path (bucket and key) {@code path} accepts get {@code fault}. */
  public void on(String method, Predicate<String> path, int count, Fault fault) {
    rules.add(new Rule(method, path, new AtomicInteger(count), fault));
  }

  public void clear() {
    rules.clear();
  }

  /** Requests passed to the server so far with {@code method}. */
  public long forwarded(String method) {
    AtomicLong n = forwarded.get(method);
    return n == null ? 0 : n.get();
  }

  /** Faults done so far. */
  public long injected() {
    return injected.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        threads.execute(() -> serve(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private Fault take(String method, String path) {
    for (Rule r : rules) {
      if (r.method.equals(method) && r.path.test(path) && r.left.getAndDecrement() > 0) {
        injected.incrementAndGet();
        return r.fault;
      }
    }
    return null;
  }

  private void serve(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      OutputStream out = client.getOutputStream();
      List<String> head = readHead(in);
      if (head.isEmpty()) {
        return;
      }
      String[] requestLine = head.get(0).split(" ");
      String method = requestLine[0];
      String path = java.net.URLDecoder.decode(requestLine[1].split("\\?")[0], StandardCharsets.UTF_8);
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      request.write((head.get(0) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      long contentLength = 0;
      boolean chunked = false;
      boolean expectContinue = false;
      for (String h : head.subList(1, head.size())) {
        String name = h.substring(0, Math.max(0, h.indexOf(':'))).trim().toLowerCase(Locale.ROOT);
        String value = h.substring(h.indexOf(':') + 1).trim();
        switch (name) {
          case "connection", "keep-alive", "upgrade", "http2-settings" -> {
            continue;
          }
          case "expect" -> {
            expectContinue = value.equalsIgnoreCase("100-continue");
            continue;
          }
          case "content-length" -> contentLength = Long.parseLong(value);
          case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
          default -> { }
        }
        request.write((h + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      }
      request.write("Connection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      if (expectContinue) {
        out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
      }
      if (chunked) {
        copyChunked(in, request);
      } else {
        request.write(in.readNBytes((int) contentLength));
      }
      Fault fault = take(method, path);
      if (fault == Fault.REFUSE) {
        answer(out, 403, "Forbidden", dialect.refused, "Access denied (injected).");
        return;
      }
      if (fault == Fault.SLOW_DOWN) {
        answer(out, 503, "Slow Down", dialect.busy, "Please reduce your request rate.");
        return;
      }
      if (fault == Fault.TOO_MANY_REQUESTS) {
        answer(out, 429, "Too Many Requests", dialect.tooMany, "Please reduce your request rate.");
        return;
      }
      if (fault == Fault.INTERNAL_ERROR) {
        answer(out, 500, "Internal Server Error", dialect.internal, "We encountered an internal error.");
        return;
      }
      forwarded.computeIfAbsent(method, m -> new AtomicLong()).incrementAndGet();
      byte[] response;
      try (Socket upstream = new Socket(upstreamHost, upstreamPort)) {
        upstream.getOutputStream().write(request.toByteArray());
        upstream.getOutputStream().flush();
        response = closing(upstream.getInputStream().readAllBytes());
      }
      if (fault == Fault.FORWARD_THEN_INTERNAL_ERROR) {
        answer(out, 500, "Internal Server Error", dialect.internal, "We encountered an internal error.");
        return;
      }
      if (fault == Fault.FORWARD_THEN_DROP) {
        client.setSoLinger(true, 0); // a reset, as a dying load balancer sends
        return;
      }
      if (fault == Fault.FORWARD_THEN_STALL) {
        Thread.sleep(STALL_MILLIS);
      }
      if (fault == Fault.CUT_BODY) {
        int bodyStart = indexOf(response, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)) + 4;
        out.write(response, 0, bodyStart + (response.length - bodyStart) / 2);
        out.flush();
        client.setSoLinger(true, 0);
        return;
      }
      out.write(response);
      out.flush();
    } catch (IOException e) {
      // the client went away: nothing to answer
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The response with {@code Connection: close} in place of the server's own connection headers. */
  private static byte[] closing(byte[] response) throws IOException {
    int end = indexOf(response, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    if (end < 0) {
      return response;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(response.length + 32);
    for (String h : new String(response, 0, end, StandardCharsets.ISO_8859_1).split("\r\n")) {
      String name = h.contains(":") ? h.substring(0, h.indexOf(':')).trim().toLowerCase(Locale.ROOT) : "";
      if (!name.equals("connection") && !name.equals("keep-alive")) {
        out.write((h + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      }
    }
    out.write("Connection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    out.write(response, end + 4, response.length - end - 4);
    return out.toByteArray();
  }

  private void answer(OutputStream out, int status, String reason, String code, String message)
      throws IOException {
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" + message
        + "</Message></Error>").getBytes(StandardCharsets.UTF_8);
    String head = "HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/xml\r\nContent-Length: "
        + body.length + (dialect == Dialect.AZURE ? "\r\nx-ms-error-code: " + code : "")
        + "\r\nConnection: close\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  /** The request line and header lines, up to the empty line; empty when the client closed first. */
  private static List<String> readHead(InputStream in) throws IOException {
    List<String> lines = new ArrayList<>();
    while (true) {
      String line = readLine(in);
      if (line == null || line.isEmpty()) {
        return lines;
      }
      lines.add(line);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        byte[] bytes = b.toByteArray();
        int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
      }
      b.write(c);
    }
    return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
  }

  /** Copies a chunked body as it is, through its last chunk and trailers. */
  private static void copyChunked(InputStream in, ByteArrayOutputStream to) throws IOException {
    while (true) {
      String size = readLine(in);
      to.write((size + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      int n = Integer.parseInt(size.split(";")[0].trim(), 16);
      if (n == 0) {
        String trailer;
        while ((trailer = readLine(in)) != null && !trailer.isEmpty()) {
          to.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        }
        to.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        return;
      }
      to.write(in.readNBytes(n));
      to.write((readLine(in) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }
  }

  private static int indexOf(byte[] data, byte[] pattern) {
    outer:
    for (int i = 0; i + pattern.length <= data.length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (data[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Override
  public void close() throws IOException {
    server.close();
    threads.shutdownNow();
  }
}
