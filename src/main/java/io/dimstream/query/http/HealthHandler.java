package io.dimstream.query.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Collection;
import java.util.function.Supplier;

/** {@code /health}: UP (200), DOWN or TAKING_OVER (503), the served dimensions and the details behind the answer. */
final class HealthHandler {
  private final Supplier<Health> health;
  private final Collection<String> dimensions;

  HealthHandler(Supplier<Health> health, Collection<String> dimensions) {
    this.health = health;
    this.dimensions = dimensions;
  }

  void handle(Exchange ex) throws IOException {
    Health h = health.get();
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("status", h.status());
    ArrayNode dims = n.putArray("dimensions");
    dimensions.stream().sorted().forEach(dims::add);
    ObjectNode details = n.putObject("details");
    h.details().forEach(details::put);
    ex.sendJson(h.up() ? 200 : 503, n);
  }
}
