package io.dimstream.bench;

import static io.dimstream.bench.CustomerRows.row;
import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.JvmGauges.loadavg;
import static io.dimstream.bench.JvmGauges.processCpuNanos;
import static io.dimstream.bench.JvmGauges.threadCpuNanos;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.table.BulkLoad;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.TableOptions;
import io.dimstream.table.Operation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A long run of small merge-on-read commits without background compaction: 100k keys, 100 changed versions per
 * commit, one after the other, as a busy compactor commits them. Each commit leaves a deletion-vector re-mark of the
 * files it touches (a live {@code add} and a tombstone of the former DV), so the log's live state grows with the
 * number of commits, not with the change. Reports the commit thread's CPU per commit and the process's (which
 * includes any checkpoint written off the commit thread) over windows of commits, and the last checkpoint's size.
 * Checkpoints are written in the background, as the service's table sink writes them; a third argument
 * {@code inline} makes the commit that makes one due write it.
 */
public final class LogGrowthBench {
  private static final int KEYS = 100_000;
  private static final int CHANGED_VERSIONS = 100;
  private static final long CLOSE_GEN = 1_000;

  private LogGrowthBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/log"));
    int commits = quick ? 500 : 1_300;
    int window = quick ? 100 : 250;
    // as the service's table sink commits: checkpoints on a background thread; "inline" for the commit writing them
    boolean background = !(args.length > 2 && args[2].equals("inline"));
    Path dir = work.resolve("log-" + KEYS);
    BackfillBench.delete(dir);
    DeltaTable t = build(dir, background);

    long[] currentGen = new long[KEYS];
    Arrays.fill(currentGen, CLOSE_GEN);
    Random random = new Random(42);
    long gen = CLOSE_GEN + 1;
    double threadMs = 0;
    double processMs = 0;
    double wallMs = 0;
    for (int c = 1; c <= commits; c++) {
      LinkedHashSet<Long> picked = new LinkedHashSet<>();
      while (picked.size() < CHANGED_VERSIONS / 2) {
        picked.add((long) random.nextInt(KEYS));
      }
      List<VersionChange> batch = new ArrayList<>(CHANGED_VERSIONS);
      for (long k : picked) {
        batch.add(new VersionChange.Upsert(row(k, currentGen[(int) k], gen), ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(row(k, gen, null), ChangeKind.OPEN));
        currentGen[(int) k] = gen;
      }
      gen++;
      long cpu = threadCpuNanos();
      long pcpu = processCpuNanos();
      long start = System.nanoTime();
      t.newCommit(Operation.MERGE).txns(Map.of("bench", gen)).apply(batch);
      wallMs += (System.nanoTime() - start) / 1e6;
      threadMs += (threadCpuNanos() - cpu) / 1e6;
      processMs += (processCpuNanos() - pcpu) / 1e6;
      if (c % window == 0 || c == 1) {
        int n = c == 1 ? 1 : c == window ? window - 1 : window;
        emit("log", "commit_cpu_ms_per_commit", threadMs / n, "ms", params("keys", KEYS,
            "changed_versions", CHANGED_VERSIONS, "commits", (c - n + 1) + "-" + c,
            "process_cpu_ms_per_commit", Math.round(processMs / n * 10) / 10.0,
            "wall_ms_per_commit", Math.round(wallMs / n * 10) / 10.0, "table_version", t.latest().version(),
            "live_files", t.latest().fileCount(), "background_checkpoints", background, "loadavg", loadavg()));
        threadMs = 0;
        processMs = 0;
        wallMs = 0;
      }
    }
    t.checkpoint(); // the figure at the last version, whatever the background thread has got to
    checkpointSize(dir);
    BackfillBench.delete(dir);
  }

  /** The newest checkpoint's bytes and action rows, as {@code _last_checkpoint} names it. */
  private static void checkpointSize(Path dir) throws Exception {
    Path log = dir.resolve("_delta_log");
    var last = new ObjectMapper().readTree(log.resolve("_last_checkpoint").toFile());
    long version = last.get("version").asLong();
    long bytes = Files.size(log.resolve(String.format("%020d.checkpoint.parquet", version)));
    emit("log", "checkpoint_bytes", bytes, "bytes", params("keys", KEYS, "version", version,
        "actions", last.get("size").asLong(), "loadavg", loadavg()));
  }

  /** 100k keys, each with one closed and one open version, bulk loaded with default properties. */
  private static DeltaTable build(Path dir, boolean background) {
    DeltaTable t = DeltaTable.create(dir, BenchSpecs.customers(), Map.of(),
        TableOptions.defaults().withBackgroundCheckpoints(background));
    BulkLoad load = t.bulkLoad();
    List<List<Version>> byBucket = new ArrayList<>();
    for (int b = 0; b < load.buckets(); b++) {
      byBucket.add(new ArrayList<>());
    }
    for (long k = 0; k < KEYS; k++) {
      List<Version> rows = byBucket.get(load.bucketOf(BusinessKey.of(k)));
      rows.add(row(k, k % 720, CLOSE_GEN));
      rows.add(row(k, CLOSE_GEN, null));
    }
    for (int b = 0; b < byBucket.size(); b++) {
      load.write(b, byBucket.get(b));
    }
    load.commit(Operation.WRITE);
    return t;
  }
}
