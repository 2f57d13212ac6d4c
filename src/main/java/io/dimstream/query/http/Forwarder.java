package io.dimstream.query.http;

import io.dimstream.query.LiveQueries;
import io.dimstream.query.QueryErrors;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Relays a key request to the instance that owns the key, marked so that the owner answers it itself. */
final class Forwarder {
  record Answer(int status, String contentType, byte[] body) {}

  private final HttpClient client;
  private final Duration timeout;

  Forwarder(Duration timeout) {
    this.timeout = timeout;
    this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
  }

  Answer get(LiveQueries.InstanceAddress owner, URI original, String keyText) {
    String pathAndQuery = original.getRawPath() + (original.getRawQuery() == null ? "" : "?" + original.getRawQuery());
    URI target = URI.create("http://" + owner.host() + ":" + owner.port() + pathAndQuery);
    HttpRequest req = HttpRequest.newBuilder(target).timeout(timeout).header(QueryServer.FORWARDED_HEADER, "1")
        .GET().build();
    try {
      HttpResponse<byte[]> r = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
      return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse("application/json"), r.body());
    } catch (IOException e) {
      throw QueryErrors.ownerUnreachable(keyText, owner.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw QueryErrors.ownerUnreachable(keyText, owner.toString(), e);
    }
  }
}
