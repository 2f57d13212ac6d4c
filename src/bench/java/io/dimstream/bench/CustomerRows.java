package io.dimstream.bench;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import java.util.List;

/** Version rows of the example customers dimension for the table benchmarks: one generation per hour. */
final class CustomerRows {
  static final long HOUR = 3_600_000_000L;
  static final long T0 = 1_772_323_200_000_000L; // 2026-03-01 in micros
  private static final String[] TIERS = {"bronze", "silver", "gold"};

  private CustomerRows() {}

  /** The version of {@code key} valid from generation {@code fromGen} to {@code toGen} (null: open). */
  static Version row(long key, long fromGen, Long toGen) {
    return new Version(BusinessKey.of(key), Sequence.of(T0 + fromGen * HOUR),
        toGen == null ? null : Sequence.of(T0 + toGen * HOUR),
        List.of("customer " + key, "c" + key + "@example.com", "city-" + (key + fromGen) % 50,
            TIERS[(int) ((key + fromGen) % 3)]));
  }
}
