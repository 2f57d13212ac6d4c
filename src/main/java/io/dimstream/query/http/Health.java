package io.dimstream.query.http;

import java.util.Map;

/**
 * The answer of {@code GET /health}: 200 when {@code up}, else 503, with {@code details} (e.g. the Kafka Streams
 * state) in the body.
 */
public record Health(boolean up, Map<String, String> details) {
  public Health {
    details = Map.copyOf(details);
  }

  public static Health healthy() {
    return new Health(true, Map.of());
  }
}
