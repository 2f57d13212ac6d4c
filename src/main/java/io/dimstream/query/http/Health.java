package io.dimstream.query.http;

import java.util.Map;

/**
 * The answer of {@code GET /health}: 200 when {@code up}, else 503, with {@code status} (UP, DOWN or
 * {@link #TAKING_OVER}) and {@code details} (e.g. the Kafka Streams state) in the body.
 */
public record Health(boolean up, String status, Map<String, String> details) {
  /** The status of a service that is starting by taking over its table's history: not up yet, not failed. */
  public static final String TAKING_OVER = "TAKING_OVER";
  /** The status of a dimension hosted with others that has not started yet. */
  public static final String STARTING = "STARTING";

  public Health {
    details = Map.copyOf(details);
  }

  /** {@code status} UP when {@code up}, else DOWN. */
  public Health(boolean up, Map<String, String> details) {
    this(up, up ? "UP" : "DOWN", details);
  }

  /** Not up (503), with status {@link #TAKING_OVER}. */
  public static Health takingOver(Map<String, String> details) {
    return new Health(false, TAKING_OVER, details);
  }

  public static Health healthy() {
    return new Health(true, Map.of());
  }
}
