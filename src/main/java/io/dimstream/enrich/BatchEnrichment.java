package io.dimstream.enrich;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reference point-in-time join: every fact with a final history, at once. The offline command runs it, and the
 * incremental enricher is tested against it: after all input, its last record per fact key equals this join.
 */
public final class BatchEnrichment {
  private BatchEnrichment() {}

  /**
   * Joins {@code facts} (in arrival order: of two facts with one fact key, the later counts) with {@code history}
   * (versions of any keys, in any order), each fact with the version valid at its time.
   *
   * @return one record per fact key, revision 1, keyed by the fact key's JSON text, in the order the keys first came
   */
  public static Map<String, Enriched> join(EnrichmentSpec spec, List<Fact> facts, List<Version> history) {
    Map<BusinessKey, List<Version>> byKey = new HashMap<>();
    for (Version v : history) {
      byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v);
    }
    byKey.values().forEach(l -> l.sort((a, b) -> a.validFrom().compareTo(b.validFrom())));
    FactShape shape = new FactShape(spec);
    Map<String, Enriched> out = new LinkedHashMap<>();
    for (Fact f : facts) {
      List<Version> versions = byKey.getOrDefault(shape.businessKey(f), List.of());
      out.put(new String(shape.factKeyBytes(f), StandardCharsets.UTF_8),
          new Enriched(f, PointInTime.at(versions, shape.time(f)), 1));
    }
    return out;
  }
}
