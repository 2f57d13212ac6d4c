package io.dimstream.table;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.files.DataFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The merge-on-read benchmark (not a test; {@code bench/mor-bench.sh}). JSON lines: per table of N keys (one closed
 * and one open version each), commits of 100 / 10k / 100k changed versions with deletion vectors, side by side with
 * the floor (the same rows written as one plain Parquet file) and, when asked, copy-on-write; then the position
 * index (rebuild time, bytes per million keys), compaction, and a full as-of scan before and after compaction.
 *
 * <p>Arguments: {@code keys,keys,... workDir [cow]}, e.g. {@code 1000000,10000000 /tmp/bench cow}.
 */
public final class MergeOnReadBench {
  private static final long HOUR = 3_600_000_000L;
  private static final long T0 = 1_700_000_000_000_000L;
  private static final int[] CHANGES = {100, 100, 10_000, 10_000, 100_000};
  private static final int BUILD_CHUNK = 1_000_000;

  private MergeOnReadBench() {}

  public static void main(String[] args) throws IOException {
    long[] keyCounts = Arrays.stream((args.length > 0 ? args[0] : "1000000").split(","))
        .mapToLong(Long::parseLong).toArray();
    Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("mor-bench");
    boolean cow = args.length > 2 && args[2].equals("cow");
    Files.createDirectories(work);
    json("machine", Map.of("cores", Runtime.getRuntime().availableProcessors(), "maxHeapMb",
        Runtime.getRuntime().maxMemory() >> 20, "java", System.getProperty("java.version")));
    for (long keys : keyCounts) {
      run(work, (int) keys, true);
      if (cow) {
        run(work, (int) keys, false);
      }
    }
  }

  private static void run(Path work, int keys, boolean dvs) {
    String layout = dvs ? "deletionVectors" : "copyOnWrite";
    Path dir = work.resolve("mor-" + layout + "-" + keys);
    Path floorDir = work.resolve("floor-" + keys);
    resetPeak();
    DeltaTable t = DeltaTable.create(dir, Versions.customers(), Map.of("delta.checkpointInterval", "1000",
        "delta.enableDeletionVectors", Boolean.toString(dvs)));
    long start = System.nanoTime();
    // closed versions of chunk c open at hour c and close at hour OPENED: each chunk's valid_from range is its own,
    // so a chunk's new identities are pruned by the statistics of the files earlier chunks wrote
    int chunks = (keys + BUILD_CHUNK - 1) / BUILD_CHUNK;
    for (int gen = 0; gen < 2; gen++) {
      for (int c = 0; c < chunks; c++) {
        List<VersionChange> chunk = new ArrayList<>();
        for (long k = (long) c * BUILD_CHUNK; k < Math.min(keys, (long) (c + 1) * BUILD_CHUNK); k++) {
          chunk.add(gen == 0 ? new VersionChange.Upsert(row(k, c, (long) chunks), ChangeKind.CLOSE)
              : new VersionChange.Upsert(row(k, chunks, null), ChangeKind.OPEN));
        }
        t.commit(chunk, Map.of(), "WRITE");
      }
    }
    json("morBuild", Map.of("layout", layout, "keys", keys, "tableRows", t.latest().rowCount(), "seconds",
        fmt(seconds(start)), "files", t.latest().fileCount(), "peakHeapMb", peakHeapMb()));
    long[] currentGen = new long[keys];
    Arrays.fill(currentGen, chunks);
    Random random = new Random(42);
    long gen = chunks + 2L;
    for (int changes : CHANGES) {
      int changedKeys = Math.min(keys, changes / 2);
      Set<Long> picked = new LinkedHashSet<>();
      while (picked.size() < changedKeys) {
        picked.add((long) random.nextInt(keys));
      }
      List<VersionChange> batch = new ArrayList<>(changedKeys * 2);
      List<Version> rows = new ArrayList<>(changedKeys * 2);
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
      long cpu = cpuMs();
      start = System.nanoTime();
      CommitResult r = t.commit(batch, Map.of("bench", gen), "MERGE");
      double s = seconds(start);
      long commitCpu = cpuMs() - cpu;
      long heap = peakHeapMb();
      rows.sort(io.dimstream.table.internal.files.ValueOrder.BY_IDENTITY);
      start = System.nanoTime();
      AddFile floor = DataFiles.write(floorDir, "floor-" + gen + ".parquet", rows, t.latest().layout, false,
          CompressionCodecName.SNAPPY);
      double floorS = seconds(start);
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("layout", layout);
      fields.put("keys", keys);
      fields.put("changedVersions", batch.size());
      fields.put("latencyMs", Math.round(s * 1000));
      fields.put("cpuMs", commitCpu);
      fields.put("rowsWritten", r.rowsWritten());
      fields.put("filesAdded", r.filesAdded());
      fields.put("filesRemoved", r.filesRemoved());
      fields.put("floorMs", Math.round(floorS * 1000));
      fields.put("floorBytes", floor.size());
      fields.put("vsFloor", fmt(s / Math.max(floorS, 1e-3)));
      fields.put("peakHeapMb", heap);
      json("morCommit", fields);
    }
    if (dvs) {
      json("positionIndex", Map.of("keys", keys, "bytes", t.positionIndexBytes(), "bytesPerMillionKeys",
          t.positionIndexBytes() * 1_000_000 / keys));
      resetPeak();
      start = System.nanoTime();
      DeltaTable reopened = DeltaTable.open(dir);
      reopened.commit(List.of(), Map.of("bench", gen++), "MERGE");
      json("positionIndexRebuild", Map.of("keys", keys, "millis", Math.round(seconds(start) * 1000), "peakHeapMb",
          peakHeapMb()));
      long[] withDvs = asOfScan(t);
      start = System.nanoTime();
      long cpu = cpuMs();
      OptimizeResult background = t.compact(false);
      long cycleCpu = cpuMs() - cpu;
      double cycleS = seconds(start);
      long[] afterCycle = asOfScan(t);
      json("morCompaction", Map.of("keys", keys, "cycleMs", Math.round(cycleS * 1000), "cycleCpuMs", cycleCpu,
          "cycleRows", background.rowsRewritten(), "filesWithDvsLeft", t.latest().state.adds.values().stream()
              .filter(a -> a.deletionVector() != null).count(),
          "asOfScanWithDvsCpuMs", withDvs[0], "asOfScanAfterCycleCpuMs", afterCycle[0], "rows", afterCycle[1]));
    } else {
      long[] scan = asOfScan(t);
      json("cowAsOfScan", Map.of("keys", keys, "asOfScanCpuMs", scan[0], "rows", scan[1]));
    }
    delete(dir);
    delete(floorDir);
  }

  /**
   * CPU milliseconds (this thread; the machine is shared, wall time is noise) to read every row valid now by our
   * reader, the best of two runs, and the rows read.
   */
  private static long[] asOfScan(DeltaTable t) {
    long[] a = asOfScanOnce(t);
    long[] b = asOfScanOnce(t);
    return a[0] <= b[0] ? a : b;
  }

  private static long[] asOfScanOnce(DeltaTable t) {
    long cpu = cpuMs();
    long n;
    try (Stream<Version> s = t.latest().asOf(Long.MAX_VALUE - 1)) {
      n = s.count();
    }
    if (n <= 0) {
      throw new IllegalStateException("the as-of scan read no row");
    }
    return new long[] {cpuMs() - cpu, n};
  }

  private static String fmt(double d) {
    return String.format(Locale.ROOT, "%.2f", d);
  }

  private static Version row(long key, long fromGen, Long toGen) {
    return new Version(BusinessKey.of(key), Sequence.of(T0 + fromGen * HOUR),
        toGen == null ? null : Sequence.of(T0 + toGen * HOUR),
        Arrays.asList("customer-" + key + "-" + fromGen, (int) (key % 5), BigDecimal.valueOf(key % 100_000, 2),
            LocalDate.of(2020, 1, 1).plusDays(key % 1000)));
  }

  private static long cpuMs() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1_000_000;
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static void resetPeak() {
    System.gc();
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
  }

  private static long peakHeapMb() {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        sum += p.getPeakUsage().getUsed();
      }
    }
    return sum / (1024 * 1024);
  }

  private static void json(String kind, Map<String, ?> fields) {
    StringBuilder sb = new StringBuilder("{\"bench\":\"").append(kind).append('"');
    fields.entrySet().stream()
        .sorted(Map.Entry.comparingByKey()).forEach(e -> {
          sb.append(",\"").append(e.getKey()).append("\":");
          Object v = e.getValue();
          sb.append(v instanceof Number ? v.toString() : "\"" + v + "\"");
        });
    System.out.println(sb.append('}'));
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
