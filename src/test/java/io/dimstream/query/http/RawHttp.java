package io.dimstream.query.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** HTTP/1.1 over a plain socket, for requests java.net.http refuses to send and for clients that misbehave. */
final class RawHttp {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RawHttp() {}

  record Reply(int status, Map<String, String> headers, String body) {
    JsonNode json() throws IOException {
      return JSON.readTree(body);
    }

    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /** Sends {@code GET target} (or another method) with {@code Connection: close} and reads the whole answer. */
  static Reply request(int port, String method, String target, String... extraHeaders) throws IOException {
    StringBuilder head = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (String h : extraHeaders) {
      head.append(h).append("\r\n");
    }
    return send(port, "127.0.0.1", head.append("Connection: close\r\n\r\n").toString());
  }

  /** Sends the bytes of {@code raw} as they are from {@code localAddress} and reads the answer until the server closes. */
  static Reply send(int port, String localAddress, String raw) throws IOException {
    try (Socket s = connect(localAddress, port)) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      return parse(readToEnd(s.getInputStream()));
    }
  }

  /** A socket connected to the server from a chosen loopback address (all of 127.0.0.0/8 is loopback on Linux). */
  static Socket connect(String localAddress, int port) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(localAddress, 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    return s;
  }

  /** True when the server has closed (or reset) the socket; false when it is open and silent for {@code waitMs}. */
  static boolean closedByServer(Socket s, int waitMs) throws IOException {
    s.setSoTimeout(waitMs);
    try {
      InputStream in = s.getInputStream();
      // a server may answer 408 before it closes: skip the answer, wait for the end
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true;
    }
  }

  private static byte[] readToEnd(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        out.write(buf, 0, n);
      }
    } catch (SocketException e) {
      // a server that closes after its answer may reset the connection; what was read is the answer
    }
    return out.toByteArray();
  }

  private static Reply parse(byte[] bytes) {
    // ISO-8859-1 keeps one char per byte, so chunk sizes (in bytes) can be applied to the text
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new AssertionError("no HTTP answer, got: \"" + text + "\"");
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
    }
    String body = text.substring(end + 4);
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      body = dechunk(body);
    }
    return new Reply(status, headers, new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
  }

  private static String dechunk(String body) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int eol = body.indexOf("\r\n", at);
      int size = Integer.parseInt(body.substring(at, eol).trim(), 16);
      if (size == 0) {
        return out.toString();
      }
      out.append(body, eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
  }
}
