package io.dimstream.bench;

import static io.dimstream.bench.CustomerRows.row;
import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.JvmGauges.loadavg;
import static io.dimstream.bench.JvmGauges.threadCpuNanos;

import io.dimstream.model.ChangeKind;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What the change data feed costs a merge-on-read commit: two tables of the same keys, as a backfill leaves them (one
 * closed and one open version per key), one with {@code delta.enableChangeDataFeed=true}; the same commits of 100 /
 * 10k / 100k changed versions (half close-outs, half new open versions, the compactor's kind of commit) applied to
 * each in turn, so that both meet the same load on a shared machine. Per size: the median CPU time of the committing
 * thread and wall time with and without the feed, their ratio, and the bytes of change data beside the bytes of data.
 */
public final class ChangeDataFeedBench {
  private static final int[] CHANGES = {100, 100, 100, 10_000, 10_000, 10_000, 100_000};
  private static final long CLOSE_GEN = 1_000;

  private ChangeDataFeedBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/cdf"));
    int keys = args.length > 2 ? Integer.parseInt(args[2]) : quick ? 200_000 : 1_000_000;
    DimensionSpec spec = BenchSpecs.customers();
    Path plainDir = work.resolve("plain-" + keys);
    Path feedDir = work.resolve("feed-" + keys);
    BackfillBench.delete(plainDir);
    BackfillBench.delete(feedDir);
    MergeOnReadBench.build(plainDir, spec, keys, "cdf", Map.of());
    MergeOnReadBench.build(feedDir, spec, keys, "cdf", Map.of("delta.enableChangeDataFeed", "true"));
    DeltaTable plain = DeltaTable.open(plainDir);
    DeltaTable feed = DeltaTable.open(feedDir);
    // the position index of each, built before the first measured commit
    plain.newCommit(Operation.MERGE).txns(Map.of("bench", 1L)).apply(PositionIndexBench.NOTHING);
    feed.newCommit(Operation.MERGE).txns(Map.of("bench", 1L)).apply(PositionIndexBench.NOTHING);

    long[] currentGen = new long[keys];
    Arrays.fill(currentGen, CLOSE_GEN);
    Random random = new Random(42);
    long gen = CLOSE_GEN + 1;
    Map<Integer, List<double[]>> samples = new TreeMap<>();
    for (int changes : CHANGES) {
      LinkedHashSet<Long> picked = new LinkedHashSet<>();
      while (picked.size() < changes / 2) {
        picked.add((long) random.nextInt(keys));
      }
      List<VersionChange> batch = new ArrayList<>(changes);
      for (long k : picked) {
        batch.add(new VersionChange.Upsert(row(k, currentGen[(int) k], gen), ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(row(k, gen, null), ChangeKind.OPEN));
        currentGen[(int) k] = gen;
      }
      gen++;
      long feedBytesBefore = bytes(feedDir.resolve("_change_data"));
      long dataBytesBefore = bytes(feedDir) - feedBytesBefore;
      double[] without = commit(plain, batch, gen);
      double[] with = commit(feed, batch, gen);
      long changeBytes = bytes(feedDir.resolve("_change_data")) - feedBytesBefore;
      long dataBytes = bytes(feedDir) - changeBytes - feedBytesBefore - dataBytesBefore;
      samples.computeIfAbsent(changes, c -> new ArrayList<>()).add(new double[] {without[0], without[1], with[0],
          with[1]});
      emit("cdf", "commit_cpu_with_feed", with[0], "ms", params("keys", keys, "changed_versions", changes,
          "cpu_ms_without_feed", Math.round(without[0]), "wall_ms", Math.round(with[1]),
          "wall_ms_without_feed", Math.round(without[1]), "change_data_bytes", changeBytes,
          "table_bytes_added", dataBytes, "loadavg", loadavg()));
    }
    samples.forEach((changes, list) -> {
      double cpuWithout = median(list, 0);
      double wallWithout = median(list, 1);
      double cpuWith = median(list, 2);
      double wallWith = median(list, 3);
      emit("cdf", "commit_cpu_ratio_with_to_without_feed", cpuWith / cpuWithout, "x", params("keys", keys,
          "changed_versions", changes, "cpu_ms_with", Math.round(cpuWith), "cpu_ms_without", Math.round(cpuWithout),
          "wall_ms_with", Math.round(wallWith), "wall_ms_without", Math.round(wallWithout), "commits", list.size(),
          "loadavg", loadavg()));
    });
    BackfillBench.delete(plainDir);
    BackfillBench.delete(feedDir);
  }

  /** CPU ms of this thread and wall ms of one commit. */
  private static double[] commit(DeltaTable t, List<VersionChange> batch, long gen) {
    long cpu = threadCpuNanos();
    long start = System.nanoTime();
    t.newCommit(Operation.MERGE).txns(Map.of("bench", gen)).apply(batch);
    return new double[] {(threadCpuNanos() - cpu) / 1e6, (System.nanoTime() - start) / 1e6};
  }

  private static long bytes(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static double median(List<double[]> samples, int field) {
    double[] v = samples.stream().mapToDouble(s -> s[field]).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
