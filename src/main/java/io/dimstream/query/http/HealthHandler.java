package io.dimstream.query.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /health}: UP (200), DOWN or TAKING_OVER (503), the served dimensions and the details behind the answer.
 *
 * <p>With several dimensions in one process each has its own health under {@code by_dimension}, and the answer is
 * the whole's: UP when every dimension is up, {@link #DEGRADED} (still 200: the others serve) when some are up and
 * some are not; when none is up, DOWN if one failed, else TAKING_OVER while one takes over, else STARTING.
 */
final class HealthHandler {
  /** Some of the dimensions hosted in one process are up, others are not. */
  static final String DEGRADED = "DEGRADED";

  private final Supplier<Health> health;
  private final Collection<String> dimensions;
  private final Map<String, Supplier<Health>> byDimension;

  HealthHandler(Supplier<Health> health, Collection<String> dimensions, Map<String, Supplier<Health>> byDimension) {
    this.health = health;
    this.dimensions = dimensions;
    this.byDimension = byDimension;
  }

  void handle(Exchange ex) throws IOException {
    Map<String, Health> each = new LinkedHashMap<>();
    byDimension.forEach((name, h) -> each.put(name, h.get()));
    Health h = each.isEmpty() ? health.get() : whole(each);
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("status", h.status());
    ArrayNode dims = n.putArray("dimensions");
    dimensions.stream().sorted().forEach(dims::add);
    ObjectNode details = n.putObject("details");
    h.details().forEach(details::put);
    if (!each.isEmpty()) {
      ObjectNode by = n.putObject("by_dimension");
      each.forEach((name, d) -> {
        ObjectNode one = by.putObject(name);
        one.put("status", d.status());
        ObjectNode dd = one.putObject("details");
        d.details().forEach(dd::put);
      });
    }
    ex.sendJson(h.up() ? 200 : 503, n);
  }

  private static Health whole(Map<String, Health> each) {
    long up = each.values().stream().filter(Health::up).count();
    Map<String, String> details = new LinkedHashMap<>();
    each.forEach((name, h) -> {
      if (!h.up()) {
        details.put(name, h.status());
      }
    });
    if (up == each.size()) {
      return new Health(true, Map.of());
    }
    if (up > 0) {
      return new Health(true, DEGRADED, details);
    }
    if (each.values().stream().anyMatch(h -> "DOWN".equals(h.status()))) {
      return new Health(false, details);
    }
    if (each.values().stream().anyMatch(h -> Health.TAKING_OVER.equals(h.status()))) {
      return Health.takingOver(details);
    }
    return new Health(false, Health.STARTING, details);
  }
}
