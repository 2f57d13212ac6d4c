package io.dimstream.table;

import static io.dimstream.table.Versions.upsert;
import static io.dimstream.table.Versions.version;

import io.dimstream.bench.Figures;
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
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Scale-out of the table writer ({@code bench/run --only scaleout}). The same rounds of changes (per round
 * and per partition of 4, {@code changes} version changes: close-outs and new current versions of random keys) are
 * committed into a merge-on-read table of {@code keys} keys by 1 writer owning the 4 partitions, then, on a fresh
 * copy of the table, by 2 writers owning 2 partitions each, committing concurrently (each with its own table instance
 * and position index, as two service instances would). Each writer runs one bounded compaction cycle after each
 * commit, as the compactor does. JSON lines ({@link Figures}): commits/s, versions/s, process CPU seconds, re-plans,
 * load average.
 *
 * <p>Arguments: {@code quick|full workDir [keys rounds changesPerPartition]}; quick is 100k keys, 12 rounds, 2,000
 * changes per partition and round; full is 1M keys, 30 rounds, 2,000.
 */
public final class ScaleOutBench {
  private static final int PARTITIONS = 4;

  private ScaleOutBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length == 0 || args[0].equals("quick");
    Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("scale-out-bench");
    int keys = args.length > 2 ? Integer.parseInt(args[2]) : quick ? 100_000 : 1_000_000;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : quick ? 12 : 30;
    int perPartition = args.length > 4 ? Integer.parseInt(args[4]) : 2_000;
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
    table.newCommit(Operation.WRITE).partitions(initialOwners).apply(initial);
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
          CommitResult result = mine.newCommit(Operation.MERGE).txns(txns).partitions(partitions).apply(batch);
          commits.incrementAndGet();
          versions.addAndGet(batch.size());
          if (result.attempts() > 1) {
            replans.addAndGet(result.attempts() - 1);
          }
          mine.newCompaction().owners(Ownership.of(owned, PARTITIONS)).runCycle();
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
    if (current != keys) {
      throw new IllegalStateException(writers + " writer(s) left " + current + " current rows, expected " + keys);
    }
    Map<String, Object> p = Figures.params("writers", writers, "keys", keys, "rounds", data.size(), "versions",
        versions.get(), "commits", commits.get(), "merge_commits_in_log", merges, "optimize_commits_in_log", optimizes,
        "replans", replans.get(), "loadavg", loadavg());
    Figures.emit("scaleout", "versions_per_s", versions.get() / seconds, "versions/s", p);
    Figures.emit("scaleout", "commits_per_s", commits.get() / seconds, "commits/s", p);
    Figures.emit("scaleout", "cpu_s", cpu, "s", p);
    Figures.emit("scaleout", "versions_per_cpu_s", versions.get() / cpu, "versions/cpu-s", p);
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
}
