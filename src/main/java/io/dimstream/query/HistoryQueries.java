package io.dimstream.query;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The history questions of docs/concepts.md ("Asking the table") over one {@link VersionSource} (one table version). Times are
 * values of the first sequence column as sequence longs (see {@link SequenceTimes}); a version is valid at T when
 * {@code valid_from <= T < valid_to} on their first parts, an open version ({@code valid_to} null) from its
 * {@code valid_from} on. Thread-safe if the source is.
 */
public final class HistoryQueries {
  private final VersionSource source;
  private final DimensionSpec spec;

  public HistoryQueries(VersionSource source) {
    this.source = Objects.requireNonNull(source, "source");
    this.spec = source.spec();
  }

  public DimensionSpec spec() {
    return spec;
  }

  /** The table version the answers come from; -1 for in-memory data. */
  public long tableVersion() {
    return source.tableVersion();
  }

  /**
   * The dimension as it was valid at {@code at}: at most one version per key, in storage order (not sorted), read
   * lazily with memory bounded by one data file's row group. Close the stream.
   *
   * @param keys  the keys wanted; empty = every key
   * @param where filters every returned version satisfies (ANDed); empty = none
   */
  public Stream<Version> asOf(long at, Set<BusinessKey> keys, List<? extends Predicate<Version>> where) {
    Stream<Version> s = source.scan(ScanHints.validAt(keys, at)).filter(v -> v.validAt(at));
    if (!keys.isEmpty()) {
      s = s.filter(v -> keys.contains(v.key()));
    }
    for (Predicate<Version> p : where) {
      s = s.filter(p);
    }
    return s;
  }

  /** The version of {@code key} valid at {@code at}, if any. */
  public Optional<Version> asOf(BusinessKey key, long at) {
    try (Stream<Version> s = asOf(at, Set.of(key), List.of())) {
      return s.findFirst();
    }
  }

  /** The open version of {@code key}; empty when the key is unknown or deleted. */
  public Optional<Version> current(BusinessKey key) {
    return history(key).stream().filter(Version::isCurrent).findFirst();
  }

  /** Every version of {@code key}, oldest first ({@code valid_from} ascending); empty when the key is unknown. */
  public List<Version> history(BusinessKey key) {
    try (Stream<Version> s = source.scan(ScanHints.key(key))) {
      return s.filter(v -> v.key().equals(key)).sorted(Comparator.comparing(Version::validFrom)).toList();
    }
  }

  /**
   * The changes in {@code [from, to)}: every point where a version of a key opened or closed, as inserts, updates
   * and deletes with the attributes that changed, ordered by sequence then key. Memory grows with the number of
   * changes in the range, not with the table.
   *
   * @param keys the keys wanted; empty = every key
   * @throws QueryException {@link QueryException.Reason#BAD_INPUT} when {@code from >= to}
   */
  public List<Change> changes(long from, long to, Set<BusinessKey> keys) {
    if (from >= to) {
      throw QueryErrors.badRange(SequenceTimes.format(spec, from), SequenceTimes.format(spec, to));
    }
    Map<Point, Version> opened = new HashMap<>();
    Map<Point, Version> closed = new HashMap<>();
    try (Stream<Version> s = source.scan(ScanHints.touching(keys, from, to))) {
      s.forEach(v -> {
        if (!keys.isEmpty() && !keys.contains(v.key())) {
          return;
        }
        if (in(v.validFrom(), from, to)) {
          opened.put(new Point(v.key(), v.validFrom()), v);
        }
        if (v.validTo() != null && in(v.validTo(), from, to)) {
          closed.put(new Point(v.key(), v.validTo()), v);
        }
      });
    }
    Set<Point> points = new LinkedHashSet<>(opened.keySet());
    points.addAll(closed.keySet());
    List<Column> attrs = spec.attributeColumns();
    List<Change> out = new ArrayList<>(points.size());
    for (Point p : points) {
      Version before = closed.get(p);
      Version after = opened.get(p);
      Change.Kind kind = before == null ? Change.Kind.INSERT : after == null ? Change.Kind.DELETE : Change.Kind.UPDATE;
      List<String> changed = new ArrayList<>();
      for (int i = 0; i < attrs.size(); i++) {
        Object a = before == null ? null : before.attributes().get(i);
        Object b = after == null ? null : after.attributes().get(i);
        if (kind != Change.Kind.UPDATE || !Objects.equals(a, b)) {
          changed.add(attrs.get(i).name());
        }
      }
      out.add(new Change(p.key(), p.at(), kind, before, after, changed));
    }
    out.sort(Comparator.comparing(Change::at).thenComparing(Change::key, BusinessKeys.ORDER));
    return out;
  }

  private static boolean in(Sequence s, long from, long to) {
    return s.first() >= from && s.first() < to;
  }

  private record Point(BusinessKey key, Sequence at) {}
}
