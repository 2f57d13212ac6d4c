package io.dimstream.bench;

import static io.dimstream.bench.CustomerRows.row;
import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.JvmGauges.loadavg;
import static io.dimstream.bench.JvmGauges.retainedHeapMb;
import static io.dimstream.bench.JvmGauges.threadCpuNanos;

import io.dimstream.model.ChangeKind;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import io.dimstream.table.TableOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The compactor's position index on the heap against the one kept on disk (RocksDB under the data directory), on the
 * same merge-on-read table of N keys (one closed and one open version each, as {@link MergeOnReadBench} builds it),
 * in the same run: the first start (index built from the current files), the heap the open table retains, a restart
 * (the heap index is built again; the disk index is adopted and caught up), and commits of 100 changed keys spread
 * over the key range. The heap index is the baseline: the ratios say what keeping the index on disk costs or saves.
 */
public final class PositionIndexBench {
  private static final int COMMITS = 15;
  /**
   * A commit that changes no row but looks one up (the retraction of a version no table holds), so it builds or loads
   * the position index: a commit of txn markers alone does not.
   */
  static final List<VersionChange> NOTHING = List.of(new VersionChange.Retraction(
      io.dimstream.model.BusinessKey.of(-1L), io.dimstream.model.Sequence.of(0L)));
  private static final long CLOSE_GEN = 1_000;

  private PositionIndexBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/index"));
    long[] sizes = args.length > 2 ? Arrays.stream(args[2].split(",")).mapToLong(Long::parseLong).toArray()
        : quick ? new long[] {1_000_000} : new long[] {1_000_000, 10_000_000};
    DimensionSpec spec = BenchSpecs.customers();
    for (long keys : sizes) {
      Path dir = work.resolve("index-" + keys);
      BackfillBench.delete(dir);
      MergeOnReadBench.build(dir, spec, (int) keys, "index");
      long gen = CLOSE_GEN + 1;
      long[] currentGen = new long[(int) keys];
      Arrays.fill(currentGen, CLOSE_GEN);
      for (String kind : List.of("heap", "disk")) {
        Path indexDir = work.resolve("position-index-" + keys);
        BackfillBench.delete(indexDir);
        TableOptions options = kind.equals("heap") ? TableOptions.defaults()
            : TableOptions.defaults().withPositionIndexDir(indexDir);
        long before = retainedHeapMb();
        double[] first = start(dir, options, kind, keys, "first_start");
        DeltaTable t = open(dir, options);
        long retained = retainedHeapMb();
        emit("index", "compactor_live_heap", retained - before, "MiB", params("keys", keys, "index", kind,
            "what", "heap retained after a full GC with the table open and its index built, minus before"));
        gen = commits(t, keys, kind, gen, currentGen);
        t.closeLocalState();
        double[] restart = start(dir, options, kind, keys, "restart");
        emit("index", "restart_vs_first_start", restart[0] / first[0], "x", params("keys", keys, "index", kind));
        BackfillBench.delete(indexDir);
      }
      BackfillBench.delete(dir);
    }
  }

  /** Opens the table and makes a commit that looks a row up (it builds or adopts the index); returns {wall, cpu} ms. */
  private static double[] start(Path dir, TableOptions options, String kind, long keys, String metric) {
    long cpu = threadCpuNanos();
    long start = System.nanoTime();
    DeltaTable t = DeltaTable.open(dir, options);
    t.newCommit(Operation.MERGE).txns(Map.of("bench-" + metric, System.nanoTime())).apply(NOTHING);
    double ms = (System.nanoTime() - start) / 1e6;
    double cpuMs = (threadCpuNanos() - cpu) / 1e6;
    t.closeLocalState();
    emit("index", metric, ms, "ms", params("keys", keys, "index", kind, "cpu_ms", Math.round(cpuMs),
        "what", "DeltaTable.open and a commit that looks a row up, which builds or loads the position index",
        "loadavg", loadavg()));
    return new double[] {ms, cpuMs};
  }

  private static DeltaTable open(Path dir, TableOptions options) {
    DeltaTable t = DeltaTable.open(dir, options);
    t.newCommit(Operation.MERGE).txns(Map.of("bench-open", System.nanoTime())).apply(NOTHING);
    return t;
  }

  /** Commits of 100 changed keys (a close-out and a new open version each); emits their median. */
  private static long commits(DeltaTable t, long keys, String kind, long gen, long[] currentGen) {
    Random random = new Random(7);
    List<Double> wall = new ArrayList<>();
    for (int c = 0; c < COMMITS; c++) {
      LinkedHashSet<Long> picked = new LinkedHashSet<>();
      while (picked.size() < 100) {
        picked.add((long) random.nextInt((int) keys));
      }
      List<VersionChange> batch = new ArrayList<>();
      for (long k : picked) {
        batch.add(new VersionChange.Upsert(row(k, currentGen[(int) k], gen), ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(row(k, gen, null), ChangeKind.OPEN));
        currentGen[(int) k] = gen;
      }
      long start = System.nanoTime();
      t.newCommit(Operation.MERGE).txns(Map.of("bench-commit", gen)).apply(batch);
      wall.add((System.nanoTime() - start) / 1e6);
      gen++;
    }
    List<Double> sorted = wall.stream().sorted().toList();
    emit("index", "commit_100_median", sorted.get(sorted.size() / 2), "ms", params("keys", keys, "index", kind,
        "commits", COMMITS, "what", "commits of 100 keys spread over the key range, each closing the open version"
            + " and opening a new one"));
    return gen;
  }
}
