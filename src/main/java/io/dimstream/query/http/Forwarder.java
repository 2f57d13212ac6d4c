package io.dimstream.query.http;

import io.dimstream.query.LiveQueries;
import io.dimstream.query.QueryErrors;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * Relays a key request to the instance that owns the key, marked so that the owner answers it itself. With TLS on,
 * it speaks HTTPS (the owner's certificate must match its advertised host); with a token, it sends the token.
 */
final class Forwarder {
  record Answer(int status, String contentType, byte[] body) {}

  private final HttpClient client;
  private final Duration timeout;
  private final String scheme;
  private final String token;

  /** {@code tls} null: plain HTTP; {@code token} null: no Authorization header. */
  Forwarder(Duration timeout, SSLContext tls, String token) {
    this.timeout = timeout;
    this.scheme = tls == null ? "http" : "https";
    this.token = token;
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1);
    if (tls != null) {
      b.sslContext(tls);
    }
    this.client = b.build();
  }

  Answer get(LiveQueries.InstanceAddress owner, URI original, String keyText) {
    String pathAndQuery = original.getRawPath() + (original.getRawQuery() == null ? "" : "?" + original.getRawQuery());
    URI target = URI.create(scheme + "://" + owner.host() + ":" + owner.port() + pathAndQuery);
    HttpRequest.Builder req = HttpRequest.newBuilder(target).timeout(timeout).header(QueryServer.FORWARDED_HEADER, "1")
        .GET();
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<byte[]> r = client.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
      return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse("application/json"), r.body());
    } catch (IOException e) {
      throw QueryErrors.ownerUnreachable(keyText, owner.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw QueryErrors.ownerUnreachable(keyText, owner.toString(), e);
    }
  }
}
