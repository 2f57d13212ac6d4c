package io.dimstream.enrich;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One decoded fact.
 *
 * @param values the values of {@code EnrichmentSpec.facts().columns()}, in order; the key, time and join columns are
 *               never null
 */
public record Fact(List<Object> values) {
  public Fact {
    values = Collections.unmodifiableList(new ArrayList<>(values));
  }
}
