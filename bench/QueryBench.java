import io.dimstream.config.DimensionSpec;
import io.dimstream.history.BusinessKey;
import io.dimstream.history.ChangeKind;
import io.dimstream.history.Scd2Fold;
import io.dimstream.history.Version;
import io.dimstream.history.VersionChange;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.HistoryQueries;
import io.dimstream.query.TimeTravel;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
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
 * Query latencies over a Delta table of about 1M versions: point as-of, key history, full as-of scan. Run with
 * bench/query-latency.sh (not part of mvn verify). Args: [versions-target] [work-dir] [dimstream.targetFileRows]
 * [lookups].
 */
public class QueryBench {
  static final DimensionSpec SPEC = io.dimstream.query.QueryFixtures.CUSTOMERS;

  public static void main(String[] args) throws Exception {
    int target = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    Path dir = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("dimstream-bench");
    String fileRows = args.length > 2 ? args[2] : "100000";
    Path tablePath = dir.resolve("customers-" + fileRows);
    long t0 = System.nanoTime();
    List<Version> versions;
    if (!Files.isDirectory(tablePath.resolve("_delta_log"))) {
      int events = (int) (target * 1.2);
      versions = Scd2Fold.fold(SPEC, ChangeStreams.random(SPEC, 1).keys(Math.max(1, target / 10)).events(events)
          .late(0.05).duplicates(0.02).deletes(0.02).generate().events());
      System.out.printf("generated %,d versions in %.1f s%n", versions.size(), (System.nanoTime() - t0) / 1e9);
      long w = System.nanoTime();
      DeltaTable t = DeltaTable.create(tablePath, SPEC, Map.of("dimstream.targetFileRows", fileRows));
      List<VersionChange> changes = new ArrayList<>(versions.size());
      versions.forEach(v -> changes.add(new VersionChange.Upsert(v, v.isCurrent() ? ChangeKind.OPEN : ChangeKind.CLOSE)));
      t.commit(changes, Map.of(), "WRITE");
      System.out.printf("wrote the table in %.1f s%n", (System.nanoTime() - w) / 1e9);
    } else {
      versions = null;
    }
    DeltaVersionTable table = DeltaVersionTable.open(tablePath);
    HistoryQueries q = new HistoryQueries(table.at(TimeTravel.LATEST));
    List<BusinessKey> keys = new ArrayList<>();
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    try (Stream<Version> s = table.at(TimeTravel.LATEST).scan(io.dimstream.query.ScanHints.ALL)) {
      long rows = 0;
      Random r = new Random(5);
      for (var it = s.iterator(); it.hasNext(); ) {
        Version v = it.next();
        rows++;
        min = Math.min(min, v.validFrom().first());
        max = Math.max(max, v.validFrom().first());
        if (r.nextInt(500) == 0) {
          keys.add(v.key());
        }
      }
      System.out.printf("table: %,d versions, %d data files%n", rows, table.table().latest().fileCount());
    }
    Random rnd = new Random(9);
    int n = args.length > 3 ? Integer.parseInt(args[3]) : 50;
    long[] point = new long[n];
    long[] history = new long[n];
    for (int i = 0; i < n + 5; i++) {
      BusinessKey k = keys.get(rnd.nextInt(keys.size()));
      long t = min + (long) (rnd.nextDouble() * (max - min));
      long a = System.nanoTime();
      q.asOf(k, t);
      long b = System.nanoTime();
      q.history(k);
      long c = System.nanoTime();
      if (i >= 5) { // the first 5 warm up the JIT
        point[i - 5] = b - a;
        history[i - 5] = c - b;
      }
    }
    report("point as-of (key, T)", point);
    report("key history", history);
    long[] scans = new long[5];
    for (int i = 0; i < scans.length + 1; i++) {
      long t = min + (long) ((i + 1) / 7.0 * (max - min));
      long a = System.nanoTime();
      long rows;
      try (Stream<Version> s = q.asOf(t, Set.of(), List.of())) {
        rows = s.count();
      }
      long d = System.nanoTime() - a;
      if (i > 0) {
        scans[i - 1] = d;
      }
      System.out.printf("  full as-of scan at T%d: %,d rows in %.0f ms%n", i, rows, d / 1e6);
    }
    report("full as-of scan", scans);
  }

  static void report(String what, long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    System.out.printf("%-22s n=%-4d median %8.2f ms   p95 %8.2f ms   max %8.2f ms%n", what, s.length,
        s[s.length / 2] / 1e6, s[(int) (s.length * 0.95)] / 1e6, s[s.length - 1] / 1e6);
  }
}
