package io.dimstream.table;

import static io.dimstream.table.Versions.upsert;
import static io.dimstream.table.Versions.version;

import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Scale-out of the table writer (not a test; {@code bench/scale-out-bench.sh}). The same rounds of changes (per round
 * and per partition of 4, {@code changes} version changes: close-outs and new current versions of random keys) are
 * committed into a merge-on-read table of {@code keys} keys by 1 writer owning the 4 partitions, then, on a fresh
 * copy of the table, by 2 writers owning 2 partitions each, committing concurrently (each with its own table instance
 * and position index, as two service instances would). Each writer runs one bounded compaction cycle after each
 * commit, as the compactor does. JSON lines: commits/s, versions/s, process CPU seconds, re-plans, load average.
 *
 * <p>Arguments: {@code keys rounds changesPerPartition workDir}, e.g. {@code 200000 30 2000 /tmp/so-bench}.
 */
public final class ScaleOutBench {
  private static final int PARTITIONS = 4;

  private ScaleOutBench() {}

  public static void main(String[] args) throws Exception {
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    int perPartition = args.length > 2 ? Integer.parseInt(args[2]) : 2_000;
    Path work = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("scale-out-bench");
    json("machine", Map.of("cores", Runtime.getRuntime().availableProcessors(), "maxHeapMb",
        Runtime.getRuntime().maxMemory() >> 20, "java", System.getProperty("java.version"), "loadavg", loadavg()));
    List<List<List<VersionChange>>> data = rounds(keys, rounds, perPartition);
    for (int writers : new int[] {1, 2, 1, 2}) {
      run(work.resolve("w" + writers + "-" + System.nanoTime()), keys, data, writers);
    }
  }

  /** Per round, per partition: the version changes of that round. */
  private static List<List<List<VersionChange>>> rounds(int keys, int rounds, int perPartition) {
    Random random = new Random(42);
    long[] from = new long[keys + 1];
    List<List<List<VersionChange>>> out = new ArrayList<>();
    for (int r = 1; r <= rounds; r++) {
      List<List<VersionChange>> round = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        Set<Long> picked = new TreeSet<>();
        while (picked.size() < perPartition / 2) {
          long k = 1 + random.nextInt(keys / PARTITIONS) * (long) PARTITIONS + p;
          if (k <= keys) {
            picked.add(k);
          }
        }
        List<VersionChange> changes = new ArrayList<>();
        for (long k : picked) {
          changes.add(upsert(version(k, from[(int) k], (long) r, "r" + from[(int) k])));
          changes.add(upsert(version(k, r, null, "r" + r)));
          from[(int) k] = r;
        }
        round.add(changes);
      }
      out.add(round);
    }
    return out;
  }

  private static void run(Path dir, int keys, List<List<List<VersionChange>>> data, int writers) throws Exception {
    DeltaTable table = DeltaTable.create(dir, Versions.customers(), Map.of());
    Map<VersionId, Integer> initialOwners = new HashMap<>();
    List<VersionChange> initial = new ArrayList<>();
    for (long k = 1; k <= keys; k++) {
      Version v = version(k, 0, null, "r0");
      initial.add(upsert(v));
      initialOwners.put(VersionId.of(v), (int) ((k - 1) % PARTITIONS));
    }
    table.commit(initial, Map.of(), "WRITE", new FileOwners(initialOwners, Set.of(0, 1, 2, 3), true));
    long startVersion = table.latest().version();
    AtomicLong commits = new AtomicLong();
    AtomicLong versions = new AtomicLong();
    AtomicLong replans = new AtomicLong();
    long cpu0 = cpuNanos();
    long t0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      Set<Integer> owned = new TreeSet<>();
      for (int p = w; p < PARTITIONS; p += writers) {
        owned.add(p);
      }
      Thread t = new Thread(() -> {
        DeltaTable mine = DeltaTable.open(dir);
        for (int r = 0; r < data.size(); r++) {
          List<VersionChange> batch = new ArrayList<>();
          Map<VersionId, Integer> partitions = new HashMap<>();
          Map<String, Long> txns = new LinkedHashMap<>();
          for (int p : owned) {
            for (VersionChange c : data.get(r).get(p)) {
              batch.add(c);
              partitions.put(c.id(), p);
            }
            txns.put("customers-versions-" + p, (long) r);
          }
          FileOwners owners = new FileOwners(partitions, owned, owned.size() == PARTITIONS);
          CommitResult result = mine.commit(batch, txns, "MERGE", owners);
          commits.incrementAndGet();
          versions.addAndGet(batch.size());
          if (result.attempts() > 1) {
            replans.addAndGet(result.attempts() - 1);
          }
          mine.compact(false, owners);
        }
      }, "writer-" + w);
      t.setUncaughtExceptionHandler((th, e) -> {
        synchronized (failures) {
          failures.add(e);
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpu = (cpuNanos() - cpu0) / 1e9;
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a writer failed", failures.get(0));
    }
    DeltaTable check = DeltaTable.open(dir);
    long current;
    try (Stream<Version> rows = check.latest().current()) {
      current = rows.count();
    }
    List<CommitSummary> history = check.history();
    long merges = history.stream().filter(h -> h.version() > startVersion && h.operation().equals("MERGE")).count();
    long optimizes = history.stream().filter(h -> h.version() > startVersion && h.operation().equals("OPTIMIZE"))
        .count();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("writers", writers);
    out.put("keys", keys);
    out.put("rounds", data.size());
    out.put("versions", versions.get());
    out.put("commits", commits.get());
    out.put("mergeCommitsInLog", merges);
    out.put("optimizeCommitsInLog", optimizes);
    out.put("replans", replans.get());
    out.put("seconds", round(seconds));
    out.put("commitsPerSecond", round(commits.get() / seconds));
    out.put("versionsPerSecond", round(versions.get() / seconds));
    out.put("cpuSeconds", round(cpu));
    out.put("versionsPerCpuSecond", round(versions.get() / cpu));
    out.put("currentRowsOk", current == keys);
    out.put("loadavg", loadavg());
    json("scale-out", out);
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String loadavg() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static void json(String bench, Map<String, ?> fields) {
    String body = fields.entrySet().stream().map(e -> "\"" + e.getKey() + "\":" + (e.getValue() instanceof String s
        ? "\"" + s + "\"" : String.valueOf(e.getValue()))).collect(Collectors.joining(","));
    System.out.println(String.format(Locale.ROOT, "{\"bench\":\"%s\",%s}", bench, body));
  }
}
