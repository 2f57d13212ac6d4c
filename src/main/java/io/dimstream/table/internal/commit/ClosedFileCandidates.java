package io.dimstream.table.internal.commit;

import io.dimstream.model.VersionId;
import io.dimstream.table.internal.files.FileStats;
import io.dimstream.table.internal.index.ClosedRowPositions;
import io.dimstream.table.internal.index.IdentityBytes;
import io.dimstream.table.internal.index.IdentityFilter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Which closed files may hold one of a set of version identities, from their stats alone: the identities sorted by
 * the first {@code valid_from} part, a file's {@code valid_from} range cut out by binary search, its key bounds
 * checked for each identity in that range. Lets a commit read only the files a late correction can touch.
 */
final class ClosedFileCandidates {
  private final VersionId[] byFrom;
  private final long[] froms;
  /** {@link IdentityFilter#fingerprint} of each identity, computed on first use. */
  private long[] fingerprints;
  /** {@link ClosedRowPositions#check} of each identity, computed with the fingerprints. */
  private int[] checks;

  /** An identity with its first valid_from part taken out, so the sort compares it without following pointers. */
  private record ByFrom(long from, VersionId id) {}

  ClosedFileCandidates(Collection<VersionId> ids) {
    ByFrom[] sorted = new ByFrom[ids.size()];
    int n = 0;
    for (VersionId id : ids) {
      sorted[n++] = new ByFrom(id.validFrom().first(), id);
    }
    Arrays.sort(sorted, Comparator.comparingLong(ByFrom::from)); // stable, as the sort of the identities was
    byFrom = new VersionId[n];
    froms = new long[n];
    for (int i = 0; i < n; i++) {
      byFrom[i] = sorted[i].id();
      froms[i] = sorted[i].from();
    }
  }

  /** Whether a file with these stats may hold one of the identities that {@code wanted} still accepts. */
  boolean mayHold(FileStats st, Predicate<VersionId> wanted) {
    return mayHold(st, wanted, null);
  }

  /** As {@link #mayHold(FileStats, Predicate)}, also asking the file's identity {@code filter} when there is one. */
  boolean mayHold(FileStats st, Predicate<VersionId> wanted, IdentityFilter filter) {
    int lo = st.validFromMin == null ? 0 : lowerBound(st.validFromMin);
    int hi = st.validFromMax == null ? froms.length : lowerBound(st.validFromMax + 1);
    for (int i = lo; i < hi; i++) {
      if (wanted.test(byFrom[i]) && st.mayContainKey(byFrom[i].key())
          && (filter == null || filter.mightContain(fingerprint(i)))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Looks up in a file's row {@code positions} every identity in its valid_from range that {@code wanted} accepts;
   * returns the rows found (identity, position), or null when one identity's hash matched two rows (read the file).
   */
  List<Map.Entry<VersionId, Long>> find(FileStats st, Predicate<VersionId> wanted, ClosedRowPositions positions) {
    int lo = st.validFromMin == null ? 0 : lowerBound(st.validFromMin);
    int hi = st.validFromMax == null ? froms.length : lowerBound(st.validFromMax + 1);
    List<Map.Entry<VersionId, Long>> out = new ArrayList<>();
    for (int i = lo; i < hi; i++) {
      // no key bounds check: comparing key values costs more than the binary search, which is exact
      long fingerprint = fingerprint(i); // computes the checks too
      long pos = positions.find(fingerprint, checks[i]);
      // asked only on a hit: hashing the identity for the set costs more than the binary search
      if (pos == ClosedRowPositions.ABSENT || !wanted.test(byFrom[i])) {
        continue;
      }
      if (pos == ClosedRowPositions.AMBIGUOUS) {
        return null;
      }
      out.add(Map.entry(byFrom[i], pos));
    }
    return out;
  }

  private long fingerprint(int i) {
    if (fingerprints == null) {
      fingerprints = new long[byFrom.length];
      checks = new int[byFrom.length];
      for (int j = 0; j < byFrom.length; j++) {
        byte[] bytes = IdentityBytes.of(byFrom[j].key(), byFrom[j].validFrom());
        fingerprints[j] = IdentityFilter.fingerprint(bytes);
        checks[j] = ClosedRowPositions.check(bytes);
      }
    }
    return fingerprints[i];
  }

  /** The first index whose value is at least {@code v}. */
  private int lowerBound(long v) {
    int lo = 0;
    int hi = froms.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (froms[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
