package io.dimstream.compactor;

import io.dimstream.codec.VersionJson;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/** What the compactor ITs share: a compactor on a thread of its own, versions to send, and the table read back. */
final class CompactorTestSupport {
  private CompactorTestSupport() {}

  /** Starts a compactor of {@code spec} on a daemon thread; its failure stays in {@link Compactor#failure()}. */
  static Compactor start(DimensionSpec spec, Map<String, Object> kafka, String owner) {
    Compactor c = new Compactor(spec, Compactor.openTable(spec), new VersionJson(spec)::decodeChange, kafka, owner,
        Clock.systemUTC());
    Thread t = new Thread(() -> {
      try {
        c.run();
      } catch (RuntimeException e) {
        // kept as the compactor's failure()
      }
    }, "compactor-" + spec.name());
    t.setDaemon(true);
    t.start();
    return c;
  }

  /** {@code count} open versions, one per key from {@code firstId}. */
  static List<Version> openVersions(long firstId, int count) {
    return LongStream.range(firstId, firstId + count).mapToObj(id -> new Version(BusinessKey.of(id),
        Sequence.of(1_700_000_000_000_000L + id), null, List.of("n" + id))).toList();
  }

  static DeltaTable table(DimensionSpec spec) {
    return DeltaTable.open(spec.service().tablePath().localPath());
  }

  /** The table's rows as a user reads them, by key. */
  static List<Version> rows(DimensionSpec spec) {
    try (Stream<Version> scan = table(spec).latest().scan()) {
      return scan.sorted(Comparator.comparing(v -> (Long) v.key().values().get(0))).toList();
    }
  }
}
