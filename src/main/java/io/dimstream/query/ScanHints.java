package io.dimstream.query;

import io.dimstream.model.BusinessKey;
import java.util.Set;

/**
 * What a scan is looking for, so a {@link VersionSource} can skip data files whose statistics prove they hold no
 * matching row. Hints only narrow what must be read: a source may return more rows than match (the engine filters
 * exactly), never fewer. Sequence bounds are in the units of the first sequence column (epoch microseconds for
 * timestamps, epoch days for dates, the number itself otherwise).
 *
 * @param keys       the only keys wanted; empty = every key
 * @param validAt    only versions with {@code valid_from <= validAt < valid_to} (first parts) are wanted; null = no bound
 * @param touchFrom  with {@code touchTo}: only versions that open or close in {@code [touchFrom, touchTo)} are wanted;
 *                   null = no bound
 */
public record ScanHints(Set<BusinessKey> keys, Long validAt, Long touchFrom, Long touchTo) {
  public static final ScanHints ALL = new ScanHints(Set.of(), null, null, null);

  public ScanHints {
    keys = Set.copyOf(keys);
  }

  public static ScanHints key(BusinessKey key) {
    return new ScanHints(Set.of(key), null, null, null);
  }

  public static ScanHints validAt(Set<BusinessKey> keys, long at) {
    return new ScanHints(keys, at, null, null);
  }

  public static ScanHints touching(Set<BusinessKey> keys, long from, long to) {
    return new ScanHints(keys, null, from, to);
  }
}
