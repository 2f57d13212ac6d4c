package io.dimstream.query.http;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/** {@code /metrics}: every served dimension's metrics in Prometheus' text format. */
final class MetricsHandler {
  /** A live view: dimensions hosted in one process come and go. */
  private final Collection<DimensionEndpoint> dimensions;

  MetricsHandler(Collection<DimensionEndpoint> dimensions) {
    this.dimensions = dimensions;
  }

  void handle(Exchange ex) {
    List<DimensionEndpoint> sorted = dimensions.stream().sorted(Comparator.comparing(DimensionEndpoint::name))
        .toList();
    ex.send(200, PrometheusText.CONTENT_TYPE, PrometheusText.render(sorted).getBytes(StandardCharsets.UTF_8));
  }
}
