package io.dimstream.enrich;

import io.dimstream.model.Version;
import java.util.List;

/**
 * The version of one key valid at a time: the one with {@code valid_from <= t < valid_to}, comparing {@code t} with
 * the first part of each bound (a composite sequence counts its first part as the time, so the version valid at
 * {@code t} is the last one opened at or before {@code t}).
 */
public final class PointInTime {
  private PointInTime() {}

  /**
   * The version of {@code versions} (one key's, sorted by {@code valid_from}, not overlapping) valid at {@code t}, or
   * null when none is: before the first version, in a gap after a delete, or after a delete closed the last one.
   */
  public static Version at(List<Version> versions, long t) {
    int lo = 0;
    int hi = versions.size() - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (versions.get(mid).validFrom().first() <= t) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0) {
      return null;
    }
    Version v = versions.get(found);
    return v.validTo() == null || v.validTo().first() > t ? v : null;
  }
}
