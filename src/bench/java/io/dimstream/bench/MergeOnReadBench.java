package io.dimstream.bench;

import static io.dimstream.bench.CustomerRows.row;
import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.JvmGauges.loadavg;
import static io.dimstream.bench.JvmGauges.peakHeapMb;
import static io.dimstream.bench.JvmGauges.processCpuNanos;
import static io.dimstream.bench.JvmGauges.resetPeak;
import static io.dimstream.bench.JvmGauges.retainedHeapMb;
import static io.dimstream.bench.JvmGauges.threadCpuNanos;

import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.OptimizeResult;
import io.dimstream.table.Snapshot;
import io.dimstream.table.Operation;
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
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Merge-on-read commits (deletion vectors) into tables of 1M and 10M keys, each key with one closed and one open
 * version, as a backfill leaves the table ({@link DeltaTable#bulkLoad}, default properties). Per table: the build,
 * the position index rebuilt at start (time, bytes), commits of 100 / 10k / 100k changed versions (half close-outs,
 * half new open versions, the compactor's kind of commit) beside the floor (the same rows written as one plain
 * snappy Parquet file in the same run), compactor heap, a background compaction cycle, and a full as-of scan with
 * deletion vectors, after the cycle, and of the DV-free version the load committed.
 */
public final class MergeOnReadBench {
  /** Changed versions per commit; each size is repeated and reported by its median. */
  private static final int[] CHANGES = {100, 100, 100, 10_000, 10_000, 10_000, 100_000};
  /** Generations: closed versions open at hour {@code key % 720} and close at CLOSE_GEN, where the open one starts. */
  private static final long CLOSE_GEN = 1_000;
  private static final Schema FLOOR = SchemaBuilder.record("customers_version").fields()
      .requiredLong("customer_id").optionalString("name").optionalString("email").optionalString("city")
      .optionalString("tier").requiredLong("valid_from").optionalLong("valid_to").requiredBoolean("is_current")
      .endRecord();

  private MergeOnReadBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/mor"));
    DimensionSpec spec = BenchSpecs.customers();
    Map<Integer, Map<Long, double[]>> cpuByChanges = new TreeMap<>();
    // an optional third argument picks the key counts, e.g. "10000000" to profile the large table alone
    long[] sizes = args.length > 2 ? Arrays.stream(args[2].split(",")).mapToLong(Long::parseLong).toArray()
        : quick ? new long[] {1_000_000} : new long[] {1_000_000, 10_000_000};
    for (long keys : sizes) {
      run(work, spec, (int) keys, cpuByChanges);
    }
    // the 1M -> 10M ratio of each commit size: the table grows 10x, the commit should not
    cpuByChanges.forEach((changes, byKeys) -> {
      double[] small = byKeys.get(1_000_000L);
      double[] large = byKeys.get(10_000_000L);
      if (small != null && large != null) {
        emit("mor", "commit_cpu_ratio_10m_to_1m_keys", large[0] / small[0], "x", params("changed_versions", changes,
            "wall_ratio", Math.round(large[1] / small[1] * 100) / 100.0, "loadavg", loadavg()));
      }
    });
  }

  private static void run(Path work, DimensionSpec spec, int keys, Map<Integer, Map<Long, double[]>> out)
      throws Exception {
    Path dir = work.resolve("mor-" + keys);
    Path floorDir = Files.createDirectories(work.resolve("floor-" + keys));
    BackfillBench.delete(dir);
    long loaded = build(dir, spec, keys);
    long baseHeap = retainedHeapMb();

    // the compactor at start: open the table, rebuild the position index from the current files
    resetPeak();
    long cpu = threadCpuNanos();
    long start = System.nanoTime();
    DeltaTable t = DeltaTable.open(dir);
    t.newCommit(Operation.MERGE).txns(Map.of("bench", 0L)).apply(PositionIndexBench.NOTHING); // builds the index
    double rebuildMs = (System.nanoTime() - start) / 1e6;
    long bytes = t.positionIndexBytes();
    emit("mor", "position_index_rebuild", rebuildMs, "ms", params("keys", keys, "cpu_ms",
        (threadCpuNanos() - cpu) / 1_000_000, "index_bytes", bytes, "index_bytes_per_key", bytes / keys,
        "peak_heap_mb", peakHeapMb(), "loadavg", loadavg()));
    long withIndex = retainedHeapMb();
    emit("mor", "compactor_heap_per_million_keys", (withIndex - baseHeap) * 1e6 / keys, "MiB",
        params("keys", keys, "retained_heap_mb", withIndex, "before_open_mb", baseHeap));

    long[] currentGen = new long[keys];
    Arrays.fill(currentGen, CLOSE_GEN);
    Random random = new Random(42);
    long gen = CLOSE_GEN + 1;
    Map<Integer, List<double[]>> samples = new TreeMap<>();
    for (int changes : CHANGES) {
      int changedKeys = changes / 2;
      LinkedHashSet<Long> picked = new LinkedHashSet<>();
      while (picked.size() < changedKeys) {
        picked.add((long) random.nextInt(keys));
      }
      List<VersionChange> batch = new ArrayList<>(changes);
      List<Version> rows = new ArrayList<>(changes);
      for (long k : picked) {
        Version closed = row(k, currentGen[(int) k], gen);
        Version open = row(k, gen, null);
        batch.add(new VersionChange.Upsert(closed, ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(open, ChangeKind.OPEN));
        rows.add(closed);
        rows.add(open);
        currentGen[(int) k] = gen;
      }
      gen++;
      resetPeak();
      cpu = threadCpuNanos();
      start = System.nanoTime();
      CommitResult r = t.newCommit(Operation.MERGE).txns(Map.of("bench", gen)).apply(batch);
      double ms = (System.nanoTime() - start) / 1e6;
      double cpuMs = (threadCpuNanos() - cpu) / 1e6;
      long heap = peakHeapMb();
      cpu = threadCpuNanos();
      start = System.nanoTime();
      long floorBytes = floor(floorDir.resolve("floor-" + gen + ".parquet"), rows);
      double floorMs = (System.nanoTime() - start) / 1e6;
      double floorCpuMs = (threadCpuNanos() - cpu) / 1e6;
      samples.computeIfAbsent(changes, c -> new ArrayList<>()).add(new double[] {cpuMs, ms});
      emit("mor", "commit_latency", ms, "ms", params("keys", keys, "changed_versions", changes,
          "cpu_ms", Math.round(cpuMs), "rows_written", r.rowsWritten(), "files_added", r.filesAdded(),
          "files_removed", r.filesRemoved(), "peak_heap_mb", heap, "index_bytes", t.positionIndexBytes(),
          "closed_file_index_bytes", t.closedFileIndexBytes(), "floor_ms", Math.round(floorMs),
          "floor_cpu_ms", Math.round(floorCpuMs), "floor_bytes", floorBytes,
          "wall_vs_floor", Math.round(ms / Math.max(floorMs, 1) * 100) / 100.0,
          "cpu_vs_floor", Math.round(cpuMs / Math.max(floorCpuMs, 1) * 100) / 100.0, "loadavg", loadavg()));
    }
    samples.forEach((changes, list) -> {
      double[] median = {median(list, 0), median(list, 1)};
      out.computeIfAbsent(changes, c -> new TreeMap<>()).put((long) keys, median);
      emit("mor", "commit_cpu_median", median[0], "ms", params("keys", keys, "changed_versions", changes,
          "wall_ms_median", Math.round(median[1]), "commits", list.size()));
    });

    compaction(t, keys, loaded);
    BackfillBench.delete(dir);
    BackfillBench.delete(floorDir);
  }

  /**
   * Builds the table as a backfill does: one bulk load with default properties (64 buckets: each bucket's current
   * rows in one file, its closed rows in files of up to 100k rows), buckets written on every core.
   */
  /** Returns the table version the load committed: the same table without any deletion vector. */
  static long build(Path dir, DimensionSpec spec, int keys) throws Exception {
    return build(dir, spec, keys, "mor");
  }

  /** As {@link #build(Path, DimensionSpec, int)}, its figure reported under the benchmark {@code bench}. */
  static long build(Path dir, DimensionSpec spec, int keys, String bench) throws Exception {
    return build(dir, spec, keys, bench, Map.of());
  }

  /** As {@link #build(Path, DimensionSpec, int, String)}, the table created with {@code properties}. */
  static long build(Path dir, DimensionSpec spec, int keys, String bench, Map<String, String> properties)
      throws Exception {
    long cpu = processCpuNanos();
    long start = System.nanoTime();
    DeltaTable t = DeltaTable.create(dir, spec, properties);
    long version = BucketedLoad.load(t, keys, k -> List.of(row(k, k % 720, CLOSE_GEN), row(k, CLOSE_GEN, null)));
    emit(bench, "build", (System.nanoTime() - start) / 1e9, "s", params("keys", keys, "table_rows",
        t.latest().rowCount(), "files", t.latest().fileCount(), "cpu_s", (processCpuNanos() - cpu) / 1_000_000_000,
        "loadavg", loadavg()));
    return version;
  }

  /**
   * One background compaction cycle, then a full as-of scan of three versions: the latest before the cycle (with
   * deletion vectors), the latest after it, and the version the bulk load committed, the DV-free baseline (the same
   * current rows in the same files, without any deletion vector; full compaction would not give one, it leaves
   * files under the deleted-fraction threshold as they are). The three scans alternate, three rounds, best of each:
   * on a shared machine a scan's CPU time varies by 2x from one minute to the next.
   */
  private static void compaction(DeltaTable t, int keys, long dvFreeVersion) {
    Snapshot withDvs = t.latest();
    long cpu = threadCpuNanos();
    long start = System.nanoTime();
    OptimizeResult cycle = t.newCompaction().runCycle();
    emit("mor", "background_compaction_cycle", (System.nanoTime() - start) / 1e6, "ms", params("keys", keys,
        "cpu_ms", (threadCpuNanos() - cpu) / 1_000_000, "rows_rewritten", cycle.rowsRewritten(),
        "files_removed", cycle.filesRemoved(), "files_added", cycle.filesAdded()));
    Snapshot[] snapshots = {withDvs, t.latest(), t.snapshotAt(dvFreeVersion)};
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    long[] rows = new long[3];
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 3; i++) {
        long c = threadCpuNanos();
        try (Stream<Version> s = snapshots[i].asOf(Long.MAX_VALUE - 1)) {
          rows[i] = s.count();
        }
        best[i] = Math.min(best[i], (threadCpuNanos() - c) / 1e6);
      }
    }
    if (rows[0] != rows[2] || rows[1] != rows[2]) {
      throw new IllegalStateException("the as-of scans read " + Arrays.toString(rows) + " rows; expected alike");
    }
    var p = params("keys", keys, "rows", rows[1], "with_dvs_cpu_ms", Math.round(best[0]),
        "after_cycle_cpu_ms", Math.round(best[1]), "dv_free_cpu_ms", Math.round(best[2]), "loadavg", loadavg());
    emit("mor", "as_of_scan_after_cycle_vs_dv_free", best[1] / best[2], "x", p);
    emit("mor", "as_of_scan_with_dvs_vs_dv_free", best[0] / best[2], "x", p);
  }

  /** The floor: the changed rows as one plain snappy Parquet file, no log, no statistics of ours. */
  private static long floor(Path file, List<Version> rows) throws Exception {
    Files.deleteIfExists(file);
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
        .withSchema(FLOOR).withCompressionCodec(CompressionCodecName.SNAPPY).build()) {
      for (Version v : rows) {
        GenericRecord g = new GenericData.Record(FLOOR);
        g.put("customer_id", v.key().values().get(0));
        g.put("name", v.attributes().get(0));
        g.put("email", v.attributes().get(1));
        g.put("city", v.attributes().get(2));
        g.put("tier", v.attributes().get(3));
        g.put("valid_from", v.validFrom().first());
        g.put("valid_to", v.validTo() == null ? null : v.validTo().first());
        g.put("is_current", v.isCurrent());
        w.write(g);
      }
    }
    return Files.size(file);
  }

  private static double median(List<double[]> samples, int field) {
    double[] v = samples.stream().mapToDouble(s -> s[field]).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
