package io.dimstream.table;

import io.dimstream.config.DimensionSpec;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.AddFile;
import java.io.IOException;
import java.io.PrintStream;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The table benchmark (not a test; run by {@code bench/table-bench.sh}). Prints JSON lines: codec comparison,
 * rows/s and latency of commits of 10k/100k/1M changed versions into tables of 1M and 10M rows, snapshot-load
 * time after 100 commits with and without a checkpoint, and peak heap per phase.
 *
 * <p>Arguments: {@code [scale] [workDir]}; scale 1.0 is the full benchmark, 0.1 a tenth of every size.
 */
public final class TableBench {
  private static final PrintStream OUT = System.out;
  private static final long HOUR = 3_600_000_000L;
  private static final long T0 = 1_700_000_000_000_000L;

  private TableBench() {}

  public static void main(String[] args) throws IOException {
    double scale = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
    Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("table-bench");
    Files.createDirectories(work);
    int keys = (int) (1_000_000 * scale);
    List<String> phases = args.length > 2 ? List.of(args[2].split(",")) : List.of("codecs", "tables", "buckets",
        "snapshot");
    if (phases.contains("codecs")) {
      codecs(work, keys);
    }
    if (phases.contains("tables")) {
      for (long rows : new long[] {1_000_000, 10_000_000}) {
        table(work, (long) (rows * scale), keys, Map.of(), new int[] {10_000, 10_000, 10_000, 100_000, 1_000_000});
      }
    }
    if (phases.contains("buckets")) {
      for (int buckets : new int[] {16, 64, 256}) {
        table(work, keys, keys, Map.of("dimstream.buckets", Integer.toString(buckets),
            "delta.enableDeletionVectors", "false"),
            new int[] {100, 100, 1_000, 1_000, 10_000});
      }
    }
    if (phases.contains("snapshot")) {
      snapshotLoad(work);
    }
  }

  private static DimensionSpec spec() {
    return Versions.customers();
  }

  static Version row(long key, long fromGen, Long toGen) {
    return new Version(BusinessKey.of(key), Sequence.of(T0 + fromGen * HOUR),
        toGen == null ? null : Sequence.of(T0 + toGen * HOUR),
        Arrays.asList("customer-" + key + "-" + fromGen, (int) (key % 5), BigDecimal.valueOf(key % 100_000, 2),
            LocalDate.of(2020, 1, 1).plusDays(key % 1000)));
  }

  /** Each codec twice, alternating, so that JIT warm-up does not favour the second; compare the second runs. */
  private static void codecs(Path work, int rows) {
    int run = 0;
    for (String codec : List.of("zstd", "snappy", "zstd", "snappy")) {
      run++;
      resetPeak();
      Path dir = work.resolve("codec-" + codec);
      DeltaTable t = DeltaTable.create(dir, spec(), Map.of("dimstream.codec", codec, "dimstream.buckets", "1"));
      List<VersionChange> changes = new ArrayList<>(rows);
      for (long k = 0; k < rows; k++) {
        changes.add(new VersionChange.Upsert(row(k, 0, 1L), ChangeKind.CLOSE));
      }
      long cpu = cpuMs();
      long start = System.nanoTime();
      t.commit(changes, Map.of(), "WRITE");
      double writeS = seconds(start);
      long writeCpu = cpuMs() - cpu;
      changes = null;
      cpu = cpuMs();
      start = System.nanoTime();
      long n;
      try (Stream<Version> s = t.latest().scan()) {
        n = s.count();
      }
      double readS = seconds(start);
      long readCpu = cpuMs() - cpu;
      long bytes = t.latest().state.adds.values().stream().mapToLong(AddFile::size).sum();
      json("codec", Map.of("codec", codec, "run", run, "rows", n, "writeRowsPerSec", Math.round(rows / writeS),
          "readRowsPerSec", Math.round(n / readS),
          "writeRowsPerCpuSec", Math.round(rows * 1000.0 / writeCpu), "readRowsPerCpuSec",
          Math.round(n * 1000.0 / readCpu), "bytes", bytes, "bytesPerRow",
          String.format(Locale.ROOT, "%.1f", (double) bytes / n), "peakHeapMb", peakHeapMb()));
      delete(dir);
    }
  }

  private static void table(Path work, long tableRows, int keys, Map<String, String> props, int[] commitSizes) {
    resetPeak();
    Path dir = work.resolve("table-" + tableRows);
    Map<String, String> all = new java.util.HashMap<>(props);
    all.put("delta.checkpointInterval", "1000");
    DeltaTable t = DeltaTable.create(dir, spec(), all);
    int buckets = TableProperties.buckets(t.properties());
    int versionsPerKey = (int) Math.max(1, tableRows / keys);
    long start = System.nanoTime();
    // closed history, one generation per commit, then the open versions
    for (int gen = 0; gen < versionsPerKey - 1; gen++) {
      List<VersionChange> changes = new ArrayList<>(keys);
      for (long k = 0; k < keys; k++) {
        changes.add(new VersionChange.Upsert(row(k, gen, (long) gen + 1), ChangeKind.CLOSE));
      }
      t.commit(changes, Map.of(), "WRITE");
    }
    List<VersionChange> open = new ArrayList<>(keys);
    for (long k = 0; k < keys; k++) {
      open.add(new VersionChange.Upsert(row(k, versionsPerKey - 1, null), ChangeKind.OPEN));
    }
    t.commit(open, Map.of(), "WRITE");
    open = null;
    long[] currentGen = new long[keys];
    Arrays.fill(currentGen, versionsPerKey - 1);
    json("build", Map.of("tableRows", t.latest().rowCount(), "keys", keys, "buckets", buckets, "seconds",
        String.format(Locale.ROOT, "%.1f", seconds(start)), "files", t.latest().fileCount(),
        "peakHeapMb", peakHeapMb()));
    Random random = new Random(42);
    long gen = versionsPerKey + 1L;
    for (int changes : commitSizes) {
      int changedKeys = Math.min(keys, changes / 2);
      resetPeak();
      LinkedHashMap<Long, Boolean> picked = new LinkedHashMap<>();
      while (picked.size() < changedKeys) {
        picked.put((long) random.nextInt(keys), true);
      }
      List<VersionChange> batch = new ArrayList<>(changedKeys * 2);
      for (long k : picked.keySet()) {
        batch.add(new VersionChange.Upsert(row(k, currentGen[(int) k], gen), ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(row(k, gen, null), ChangeKind.OPEN));
        currentGen[(int) k] = gen;
      }
      gen++;
      long rowsBefore = t.latest().rowCount();
      long cpu = cpuMs();
      start = System.nanoTime();
      CommitResult r = t.commit(batch, Map.of("bench", gen), "MERGE");
      double s = seconds(start);
      long commitCpu = cpuMs() - cpu;
      json("commit", Map.of("tableRows", rowsBefore, "buckets", buckets, "changedVersions", batch.size(),
          "latencyMs", Math.round(s * 1000), "cpuMs", commitCpu, "changedRowsPerSec", Math.round(batch.size() / s),
          "rowsWritten", r.rowsWritten(), "filesAdded", r.filesAdded(), "filesRemoved", r.filesRemoved(), "peakHeapMb", peakHeapMb()));
    }
    delete(dir);
  }

  private static void snapshotLoad(Path work) {
    resetPeak();
    Path dir = work.resolve("snapshot-load");
    DeltaTable t = DeltaTable.create(dir, spec(), Map.of("delta.checkpointInterval", "1000"));
    for (int c = 0; c < 100; c++) {
      List<VersionChange> batch = new ArrayList<>();
      for (long k = 0; k < 50; k++) {
        long key = c * 50L + k;
        batch.add(new VersionChange.Upsert(row(key, 0, 1L), ChangeKind.CLOSE));
        batch.add(new VersionChange.Upsert(row(key, 1, null), ChangeKind.OPEN));
      }
      t.commit(batch, Map.of("bench", (long) c), "MERGE");
    }
    for (int i = 0; i < 3; i++) {
      DeltaTable.open(dir); // warm-up
    }
    long start = System.nanoTime();
    int runs = 10;
    for (int i = 0; i < runs; i++) {
      DeltaTable.open(dir).latest();
    }
    double without = seconds(start) / runs;
    t.checkpoint();
    start = System.nanoTime();
    for (int i = 0; i < runs; i++) {
      DeltaTable.open(dir).latest();
    }
    double with = seconds(start) / runs;
    json("snapshotLoad", Map.of("commits", 100, "files", t.latest().fileCount(), "withoutCheckpointMs",
        String.format(Locale.ROOT, "%.1f", without * 1000), "withCheckpointMs",
        String.format(Locale.ROOT, "%.1f", with * 1000), "peakHeapMb", peakHeapMb()));
    delete(dir);
  }

  static long cpuMs() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1_000_000;
  }

  static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  static void resetPeak() {
    System.gc();
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
  }

  static long peakHeapMb() {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        sum += p.getPeakUsage().getUsed();
      }
    }
    return sum / (1024 * 1024);
  }

  static void json(String kind, Map<String, ?> fields) {
    StringBuilder sb = new StringBuilder("{\"bench\":\"").append(kind).append('"');
    fields.entrySet().stream()
        .sorted(Map.Entry.comparingByKey()).forEach(e -> {
          sb.append(",\"").append(e.getKey()).append("\":");
          Object v = e.getValue();
          sb.append(v instanceof Number ? v.toString() : "\"" + v + "\"");
        });
    OUT.println(sb.append('}'));
  }

  static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
