package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.HistoryQueries;
import io.dimstream.query.ScanHints;
import io.dimstream.query.TimeTravel;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.table.Operation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

/**
 * History queries over a Delta table written in one commit from a generated stream's reference fold: point
 * as-of (one key at T), key history, full as-of scan; median, p95 and max latency.
 */
public final class QueryBench {
  private QueryBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/query"));
    int target = quick ? 100_000 : 1_000_000;
    int lookups = quick ? 30 : 100;
    DimensionSpec spec = BenchSpecs.customers();
    Path tablePath = work.resolve("customers-" + target);
    BackfillBench.delete(tablePath);
    List<Version> versions = Scd2Fold.fold(spec, ChangeStreams.random(spec, 1).keys(Math.max(1, target / 10))
        .events((int) (target * 1.2)).late(0.05).duplicates(0.02).deletes(0.02).generate().events());
    DeltaTable t = DeltaTable.create(tablePath, spec, Map.of());
    List<VersionChange> changes = new ArrayList<>(versions.size());
    versions.forEach(v -> changes.add(new VersionChange.Upsert(v, v.isCurrent() ? ChangeKind.OPEN
        : ChangeKind.CLOSE)));
    t.newCommit(Operation.WRITE).apply(changes);

    DeltaVersionTable table = DeltaVersionTable.open(tablePath);
    HistoryQueries q = new HistoryQueries(table.at(TimeTravel.LATEST));
    List<BusinessKey> keys = new ArrayList<>();
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long rows = 0;
    Random r = new Random(5);
    try (Stream<Version> s = table.at(TimeTravel.LATEST).scan(ScanHints.ALL)) {
      for (var it = s.iterator(); it.hasNext(); ) {
        Version v = it.next();
        rows++;
        min = Math.min(min, v.validFrom().first());
        max = Math.max(max, v.validFrom().first());
        if (r.nextInt(500) == 0) {
          keys.add(v.key());
        }
      }
    }
    var p = params("table_versions", rows, "keys", target / 10, "data_files", table.table().latest().fileCount(),
        "lookups", lookups);
    Random rnd = new Random(9);
    long[] point = new long[lookups];
    long[] history = new long[lookups];
    for (int i = 0; i < lookups + 5; i++) {
      BusinessKey k = keys.get(rnd.nextInt(keys.size()));
      long at = min + (long) (rnd.nextDouble() * (max - min));
      long a = System.nanoTime();
      q.asOf(k, at);
      long b = System.nanoTime();
      q.history(k);
      long c = System.nanoTime();
      if (i >= 5) { // the first 5 warm up the JIT
        point[i - 5] = b - a;
        history[i - 5] = c - b;
      }
    }
    report("point_as_of", point, p);
    report("key_history", history, p);
    long[] scans = new long[5];
    for (int i = 0; i < scans.length + 1; i++) {
      long at = min + (long) ((i + 1) / 7.0 * (max - min));
      long a = System.nanoTime();
      try (Stream<Version> s = q.asOf(at, Set.of(), List.of())) {
        s.count();
      }
      if (i > 0) {
        scans[i - 1] = System.nanoTime() - a;
      }
    }
    report("full_as_of_scan", scans, p);
    BackfillBench.delete(tablePath);
  }

  private static void report(String what, long[] nanos, Map<String, Object> p) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    emit("query", what + "_median", s[s.length / 2] / 1e6, "ms", p);
    emit("query", what + "_p95", s[Math.min(s.length - 1, (int) (s.length * 0.95))] / 1e6, "ms", p);
    emit("query", what + "_max", s[s.length - 1] / 1e6, "ms", p);
  }
}
