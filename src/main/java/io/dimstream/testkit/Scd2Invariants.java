package io.dimstream.testkit;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SCD2 invariants every history must satisfy, per key: no two versions overlap, at most one is open, only
 * the newest may be open, and no interval is empty. Used by the test kit and by {@code dimstream table verify}.
 */
public final class Scd2Invariants {
  private Scd2Invariants() {}

  /** The first violation found in versions sorted by key then valid_from, or empty when all hold. */
  public static Optional<String> check(List<Version> sortedVersions) {
    List<String> all = violations(sortedVersions, 1);
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(0));
  }

  /** Up to {@code limit} violations, one sentence each naming the key. */
  public static List<String> violations(List<Version> sortedVersions, int limit) {
    Map<BusinessKey, List<Version>> byKey = new LinkedHashMap<>();
    sortedVersions.forEach(v -> byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v));
    List<String> out = new ArrayList<>();
    for (Map.Entry<BusinessKey, List<Version>> e : byKey.entrySet()) {
      List<Version> vs = e.getValue();
      long open = vs.stream().filter(Version::isCurrent).count();
      if (open > 1) {
        out.add("key " + e.getKey() + " has " + open + " open versions");
      }
      for (int i = 0; i < vs.size() && out.size() < limit; i++) {
        Version v = vs.get(i);
        if (v.validTo() != null && !v.validTo().isAfter(v.validFrom())) {
          out.add("key " + e.getKey() + ": version from " + v.validFrom() + " has an empty interval (to " + v.validTo() + ")");
        }
        if (i + 1 < vs.size()) {
          Version next = vs.get(i + 1);
          if (v.validTo() == null) {
            out.add("key " + e.getKey() + ": version from " + v.validFrom() + " is open but a newer version starts at "
                + next.validFrom());
          } else if (v.validTo().isAfter(next.validFrom())) {
            out.add("key " + e.getKey() + ": version from " + v.validFrom() + " (to " + v.validTo()
                + ") overlaps the version from " + next.validFrom());
          }
        }
      }
      if (out.size() >= limit) {
        break;
      }
    }
    return out.size() > limit ? out.subList(0, limit) : out;
  }
}
