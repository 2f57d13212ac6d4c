package io.dimstream.query;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Checks the SCD2 invariants over every stored row: per key, every interval is non-empty
 * ({@code valid_from < valid_to}), no two intervals overlap (which also means no two versions share a
 * {@code valid_from}), at most one version is open, and {@code is_current} is true exactly when {@code valid_to}
 * is null. Holds the validity bounds of every row in memory (about 100 bytes a row).
 */
public final class TableVerifier {
  /** Problems beyond this many are counted but not listed. */
  public static final int MAX_LISTED = 1000;

  private TableVerifier() {}

  /** One broken invariant of one key. */
  public record Violation(BusinessKey key, String problem) {}

  /**
   * The outcome of a verification.
   *
   * @param violations the first {@link #MAX_LISTED} problems, ordered by key
   * @param problems   how many problems were found in all
   */
  public record Report(long rows, long keys, List<Violation> violations, long problems) {
    public boolean ok() {
      return problems == 0;
    }
  }

  private record Bounds(Sequence from, Sequence to, boolean isCurrentColumn) {}

  /** Reads every row of {@code source} once and checks the invariants. */
  public static Report verify(VersionSource source) {
    Map<BusinessKey, List<Bounds>> byKey = new HashMap<>();
    long rows = 0;
    try (Stream<VersionSource.StoredVersion> s = source.storedRows()) {
      for (var it = s.iterator(); it.hasNext(); ) {
        VersionSource.StoredVersion r = it.next();
        Version v = r.version();
        byKey.computeIfAbsent(v.key(), k -> new ArrayList<>(2)).add(new Bounds(v.validFrom(), v.validTo(),
            r.isCurrentColumn()));
        rows++;
      }
    }
    List<Violation> found = new ArrayList<>();
    java.util.function.Function<Sequence, String> shown = seq -> seq.size() == 1
        ? SequenceTimes.format(source.spec(), seq.first()) : seq.toString();
    for (Map.Entry<BusinessKey, List<Bounds>> e : byKey.entrySet()) {
      check(e.getKey(), e.getValue(), found, shown);
    }
    found.sort(Comparator.comparing(Violation::key, BusinessKeys.ORDER));
    long problems = found.size();
    List<Violation> listed = found.size() > MAX_LISTED ? List.copyOf(found.subList(0, MAX_LISTED)) : found;
    return new Report(rows, byKey.size(), listed, problems);
  }

  private static void check(BusinessKey key, List<Bounds> versions, List<Violation> out,
      java.util.function.Function<Sequence, String> shown) {
    versions.sort(Comparator.comparing(Bounds::from));
    int open = 0;
    for (int i = 0; i < versions.size(); i++) {
      Bounds b = versions.get(i);
      if (b.to() == null) {
        open++;
      } else if (b.to().compareTo(b.from()) <= 0) {
        out.add(new Violation(key, "version [" + shown.apply(b.from()) + ", " + shown.apply(b.to())
            + ") is empty or inverted"));
      }
      if (b.isCurrentColumn() != (b.to() == null)) {
        out.add(new Violation(key, "version from " + shown.apply(b.from()) + " has is_current="
            + b.isCurrentColumn() + " but valid_to=" + (b.to() == null ? "null" : shown.apply(b.to()))));
      }
      if (i > 0) {
        Bounds prev = versions.get(i - 1);
        if (prev.to() == null || prev.to().compareTo(b.from()) > 0) {
          out.add(new Violation(key, "versions [" + shown.apply(prev.from()) + ", "
              + (prev.to() == null ? "open" : shown.apply(prev.to())) + ") and [" + shown.apply(b.from()) + ", "
              + (b.to() == null ? "open" : shown.apply(b.to())) + ") overlap"));
        }
      }
    }
    if (open > 1) {
      out.add(new Violation(key, open + " versions are open (valid_to null); at most one may be"));
    }
  }
}
