package io.dimstream.table;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Test helpers: a customer dimension and short ways to build versions and changes. */
final class Versions {
  static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  private Versions() {}

  /** customer_id long key, updated_at timestamp sequence, name/tier/balance/since attributes, op delete column. */
  static DimensionSpec customers() {
    return DimensionSpec.builder("customers")
        .column("customer_id", "long")
        .column("name", "string")
        .column("tier", "int")
        .column("balance", "decimal(12,2)")
        .column("since", "date")
        .column("updated_at", "timestamp")
        .column("op", "string")
        .key("customer_id")
        .sequence("updated_at")
        .trackExcept(List.of("balance"))
        .delete(new io.dimstream.spec.DeleteRule.ColumnEquals("op", "d"))
        .build();
  }

  /** Sequence at T0 plus {@code hours}, in epoch microseconds. */
  static Sequence at(long hours) {
    return Sequence.of((T0.getEpochSecond() + hours * 3600) * 1_000_000L);
  }

  static Version version(long id, long fromHour, Long toHour, String name) {
    return new Version(BusinessKey.of(id), at(fromHour), toHour == null ? null : at(toHour),
        Arrays.asList(name, (int) (id % 3), new BigDecimal("10.50"), LocalDate.of(2020, 1, 1).plusDays(id % 100)));
  }

  static VersionChange upsert(Version v) {
    return new VersionChange.Upsert(v, v.isCurrent() ? ChangeKind.OPEN : ChangeKind.CLOSE);
  }

  static VersionChange retract(long id, long fromHour) {
    return new VersionChange.Retraction(BusinessKey.of(id), at(fromHour));
  }

  static List<VersionChange> upserts(Version... versions) {
    return Stream.of(versions).map(Versions::upsert).toList();
  }

  /** Versions in a canonical order, to compare row sets. */
  static List<Version> sorted(java.util.Collection<Version> vs) {
    return vs.stream().sorted(Comparator.comparing((Version v) -> v.key().toString())
        .thenComparing(Version::validFrom)).toList();
  }

  static List<Version> scan(Snapshot s) {
    try (Stream<Version> rows = s.scan()) {
      return sorted(rows.toList());
    }
  }
}
