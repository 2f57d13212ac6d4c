package io.dimstream.query.http;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/** {@code /metrics}: every served dimension's metrics in Prometheus' text format. */
final class MetricsHandler {
  private final List<DimensionEndpoint> dimensions;

  MetricsHandler(Collection<DimensionEndpoint> dimensions) {
    this.dimensions = dimensions.stream().sorted(Comparator.comparing(DimensionEndpoint::name)).toList();
  }

  void handle(Exchange ex) {
    ex.send(200, PrometheusText.CONTENT_TYPE, PrometheusText.render(dimensions).getBytes(StandardCharsets.UTF_8));
  }
}
