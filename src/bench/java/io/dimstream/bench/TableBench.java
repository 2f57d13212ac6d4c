package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.CustomerRows.row;
import static io.dimstream.bench.JvmGauges.peakHeapMb;
import static io.dimstream.bench.JvmGauges.resetPeak;
import static io.dimstream.bench.JvmGauges.threadCpuNanos;

import io.dimstream.model.ChangeKind;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.OptimizeResult;
import io.dimstream.table.Operation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The table under the compactor's load, through the public {@link DeltaTable} facade only: latency of commits of
 * 10k / 100k / 1M changed versions into tables of 1M and 10M rows, {@code optimize} after many small commits,
 * snapshot load with and without a checkpoint. Rows have the example customers' shape.
 */
public final class TableBench {
  private TableBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/table"));
    DimensionSpec spec = BenchSpecs.customers();
    if (quick) {
      commits(work, spec, 100_000, 20_000, new int[] {1_000, 1_000, 10_000});
      optimize(work, spec, 20, 500);
      snapshotLoad(work, spec, 30);
    } else {
      commits(work, spec, 1_000_000, 1_000_000, new int[] {10_000, 10_000, 100_000, 1_000_000});
      commits(work, spec, 10_000_000, 1_000_000, new int[] {10_000, 10_000, 100_000});
      optimize(work, spec, 100, 2_000);
      snapshotLoad(work, spec, 100);
    }
  }


  /** Builds a table of {@code rows} rows over {@code keys} keys, then times commits of the given changed versions. */
  private static void commits(Path work, DimensionSpec spec, long rows, int keys, int[] sizes) throws Exception {
    Path dir = work.resolve("table-" + rows);
    BackfillBench.delete(dir);
    // copy-on-write, as the baselines were measured; MergeOnReadBench (`bench/run --only mor`) measures merge-on-read
    DeltaTable t = DeltaTable.create(dir, spec, Map.of("delta.enableDeletionVectors", "false"));
    int generations = (int) Math.max(1, rows / keys);
    long start = System.nanoTime();
    for (int gen = 0; gen < generations; gen++) {
      List<VersionChange> batch = new ArrayList<>(keys);
      for (long k = 0; k < keys; k++) {
        boolean open = gen == generations - 1;
        batch.add(new VersionChange.Upsert(row(k, gen, open ? null : (long) gen + 1),
            open ? ChangeKind.OPEN : ChangeKind.CLOSE));
      }
      t.newCommit(Operation.WRITE).apply(batch);
    }
    emit("table", "build", (System.nanoTime() - start) / 1e9, "s", params("table_rows", t.latest().rowCount(),
        "keys", keys, "commits", generations, "files", t.latest().fileCount()));
    long[] currentGen = new long[keys];
    java.util.Arrays.fill(currentGen, generations - 1);
    Random random = new Random(42);
    long gen = generations + 1L;
    for (int changes : sizes) {
      int changedKeys = Math.min(keys, changes / 2);
      LinkedHashSet<Long> picked = new LinkedHashSet<>();
      while (picked.size() < changedKeys) {
        picked.add((long) random.nextInt(keys));
      }
      List<VersionChange> batch = new ArrayList<>(changedKeys * 2);
      for (long k : picked) {
        batch.add(new VersionChange.Upsert(row(k, currentGen[(int) k], gen), ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(row(k, gen, null), ChangeKind.OPEN));
        currentGen[(int) k] = gen;
      }
      gen++;
      long before = t.latest().rowCount();
      resetPeak();
      long cpu = threadCpuNanos();
      long s = System.nanoTime();
      CommitResult r = t.newCommit(Operation.MERGE).txns(Map.of("bench", gen)).apply(batch);
      double ms = (System.nanoTime() - s) / 1e6;
      var p = params("table_rows", before, "changed_versions", batch.size(), "cpu_ms",
          (threadCpuNanos() - cpu) / 1_000_000, "rows_written", r.rowsWritten(), "files_added", r.filesAdded(),
          "files_removed", r.filesRemoved(), "peak_heap_mb", peakHeapMb());
      emit("table", "commit_latency", ms, "ms", p);
      emit("table", "commit_changed_versions_per_s", batch.size() / (ms / 1000), "versions/s", p);
    }
    BackfillBench.delete(dir);
  }

  /** {@code commits} small streaming-like commits, then one optimize. */
  private static void optimize(Path work, DimensionSpec spec, int commits, int keysPerCommit) throws Exception {
    Path dir = work.resolve("optimize");
    BackfillBench.delete(dir);
    DeltaTable t = DeltaTable.create(dir, spec, Map.of());
    for (int c = 0; c < commits; c++) {
      List<VersionChange> batch = new ArrayList<>();
      for (long k = 0; k < keysPerCommit; k++) {
        long key = (long) c * keysPerCommit + k;
        batch.add(new VersionChange.Upsert(row(key, 0, 1L), ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(row(key, 1, null), ChangeKind.OPEN));
      }
      t.newCommit(Operation.MERGE).txns(Map.of("bench", (long) c)).apply(batch);
    }
    int filesBefore = t.latest().fileCount();
    long s = System.nanoTime();
    OptimizeResult r = t.optimize();
    double ms = (System.nanoTime() - s) / 1e6;
    emit("table", "optimize", ms, "ms", params("commits", commits, "table_rows", t.latest().rowCount(),
        "files_before", filesBefore, "files_removed", r.filesRemoved(), "files_added", r.filesAdded(),
        "rows_rewritten", r.rowsRewritten()));
    BackfillBench.delete(dir);
  }

  private static void snapshotLoad(Path work, DimensionSpec spec, int commits) throws Exception {
    Path dir = work.resolve("snapshot-load");
    BackfillBench.delete(dir);
    DeltaTable t = DeltaTable.create(dir, spec, Map.of("delta.checkpointInterval", "100000"));
    for (int c = 0; c < commits; c++) {
      List<VersionChange> batch = new ArrayList<>();
      for (long k = 0; k < 50; k++) {
        long key = c * 50L + k;
        batch.add(new VersionChange.Upsert(row(key, 0, 1L), ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(row(key, 1, null), ChangeKind.OPEN));
      }
      t.newCommit(Operation.MERGE).txns(Map.of("bench", (long) c)).apply(batch);
    }
    for (int i = 0; i < 3; i++) {
      DeltaTable.open(dir).latest(); // warm-up
    }
    double without = loadMs(dir);
    t.checkpoint();
    double with = loadMs(dir);
    var p = params("commits", commits, "files", t.latest().fileCount(), "loads", 10);
    emit("table", "snapshot_load_without_checkpoint", without, "ms", p);
    emit("table", "snapshot_load_with_checkpoint", with, "ms", p);
    BackfillBench.delete(dir);
  }

  private static double loadMs(Path dir) {
    long s = System.nanoTime();
    for (int i = 0; i < 10; i++) {
      DeltaTable.open(dir).latest();
    }
    return (System.nanoTime() - s) / 1e6 / 10;
  }
}
