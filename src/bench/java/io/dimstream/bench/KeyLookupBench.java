package io.dimstream.bench;

import static io.dimstream.bench.CustomerRows.row;
import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.JvmGauges.loadavg;

import io.dimstream.model.BusinessKey;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Snapshot;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.LocalInputFile;

/**
 * One key's history out of a large table, in this JVM (no HTTP): a merge-on-read table of N keys (quick 1M, full
 * 10M, {@code -Dlookup.keys=} to choose; one open version per key, a closed one for a tenth) built with the bulk
 * loader, then {@code Snapshot.history} of random keys, wall and CPU time of each. The baseline, in the same run: a
 * plain parquet-avro reader, its defaults, the same key filter, over the same files a lookup must read (the key's
 * bucket files), as a reader that knows the layout but is not dimstream's would do it.
 */
public final class KeyLookupBench {
  private static final int LOOKUPS = 200;
  private static final int WARMUP = 20;

  private KeyLookupBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/lookup"));
    int keys = Integer.getInteger("lookup.keys", quick ? 1_000_000 : 10_000_000);
    Path table = work.resolve("lookup-table");
    BackfillBench.delete(table);
    Path config = BenchSpecs.write(work, "lookup", "127.0.0.1:1", "");
    DimensionSpec spec = DimensionSpecLoader.load(config);
    long t0 = System.nanoTime();
    DeltaTable t = DeltaTable.create(table, spec, spec.tableProperties());
    BucketedLoad.load(t, keys, k -> k % 10 == 0 ? List.of(row(k, k % 720, 1000L), row(k, 1000L, null))
        : List.of(row(k, 1000L, null)));
    emit("lookup", "table_build_s", (System.nanoTime() - t0) / 1e9, "s", params("keys", keys, "files",
        t.latest().fileCount(), "loadavg", loadavg()));

    Snapshot s = DeltaTable.open(table).latest();
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    Random random = new Random(17);
    List<Double> wall = new ArrayList<>();
    List<Double> cpuMs = new ArrayList<>();
    List<Double> baseWall = new ArrayList<>();
    List<Double> baseCpu = new ArrayList<>();
    for (int i = 0; i < WARMUP + LOOKUPS; i++) {
      long k = random.nextInt(keys);
      long c0 = cpu.getCurrentThreadCpuTime();
      long w0 = System.nanoTime();
      int found = s.history(BusinessKey.of(k)).size();
      long w1 = System.nanoTime();
      long c1 = cpu.getCurrentThreadCpuTime();
      int baseFound = baseline(table, bucketFiles(table, s, k), k);
      long w2 = System.nanoTime();
      long c2 = cpu.getCurrentThreadCpuTime();
      if (found != (k % 10 == 0 ? 2 : 1) || baseFound != found) {
        throw new IllegalStateException("key " + k + ": history has " + found + " rows, the plain reader found "
            + baseFound);
      }
      if (i >= WARMUP) {
        wall.add((w1 - w0) / 1e6);
        cpuMs.add((c1 - c0) / 1e6);
        baseWall.add((w2 - w1) / 1e6);
        baseCpu.add((c2 - c1) / 1e6);
      }
    }
    var p = params("keys", keys, "lookups", LOOKUPS, "loadavg", loadavg());
    emit("lookup", "key_lookup_median_ms", median(wall), "ms", p);
    emit("lookup", "key_lookup_cpu_median_ms", median(cpuMs), "ms", p);
    emit("lookup", "baseline_lookup_median_ms", median(baseWall), "ms", p);
    emit("lookup", "baseline_lookup_cpu_median_ms", median(baseCpu), "ms", p);
    emit("lookup", "lookup_cpu_ratio_to_baseline", median(cpuMs) / median(baseCpu), "ratio", p);
  }

  /** The files named for the key's bucket: those a lookup reads (the others cannot hold the key). */
  private static List<Path> bucketFiles(Path table, Snapshot s, long key) throws Exception {
    int buckets = Integer.parseInt(s.properties().getOrDefault("dimstream.buckets", "64"));
    String bucket = String.format("bucket-%05d-of-%05d-", io.dimstream.table.internal.files.Buckets.of(
        BusinessKey.of(key), buckets), buckets);
    try (Stream<Path> files = Files.walk(table)) {
      return files.filter(f -> f.getFileName().toString().startsWith(bucket)).toList();
    }
  }

  /** The rows of {@code key} in {@code files}, read by a plain parquet-avro reader with the key filter. */
  private static int baseline(Path table, List<Path> files, long key) throws Exception {
    int n = 0;
    for (Path f : files) {
      try (ParquetReader<GenericRecord> r = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(f),
              new PlainParquetConfiguration())
          .withFilter(FilterCompat.get(FilterApi.eq(FilterApi.longColumn("customer_id"), key))).build()) {
        for (GenericRecord rec = r.read(); rec != null; rec = r.read()) {
          if (((Number) rec.get("customer_id")).longValue() == key) {
            n++;
          }
        }
      }
    }
    return n;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
