package io.dimstream.spec;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The expression texts of a spec, as written (compiled by {@code io.dimstream.expr}; this layer only holds them).
 *
 * @param derive   attribute name to expression, in the order written; each is evaluated per upsert event
 * @param skipWhen a condition on the event that drops it before it reaches history; null when absent
 */
public record Expressions(Map<String, String> derive, String skipWhen) {
  public static final Expressions NONE = new Expressions(Map.of(), null);

  public Expressions {
    derive = Collections.unmodifiableMap(new LinkedHashMap<>(derive));
  }

  public boolean isEmpty() {
    return derive.isEmpty() && skipWhen == null;
  }
}
