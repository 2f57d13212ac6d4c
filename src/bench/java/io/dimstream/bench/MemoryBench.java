package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.table.DeltaTable;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory of {@code dimstream run} (its own JVM, {@code -Xmx4g}, against a broker in this JVM) on tables of growing
 * size: for each size, a table of that many keys (one version each) is built by {@code dimstream backfill}, then
 * {@code run} takes it over (the compactor rebuilds its position index from the table) and one step of new keys is
 * streamed through the topology into the table. After the step: the live heap (after a full GC, {@code jcmd
 * GC.run}, then jstat), the peak heap used so far (jstat: survivor + eden + old, every 500 ms; GC heuristics decide
 * how high it climbs below {@code -Xmx}), the RSS and its high-water mark. The full run measures 1M and 10M keys and
 * the live heap per million keys between them; a step streamed into a table of 10M keys streams in 10 minutes what
 * growing it from 1M would take hours to stream at today's rates.
 */
public final class MemoryBench {
  private static final long T0_MS = 1_772_323_200_000L;

  private MemoryBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/memory"));
    List<Integer> sizes = quick ? List.of(10_000, 30_000) : List.of(1_000_000, 10_000_000);
    int step = quick ? 5_000 : 250_000;
    double[] live = new double[sizes.size()];
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
      for (int i = 0; i < sizes.size(); i++) {
        live[i] = measure(work, broker, "memory" + i, sizes.get(i), step);
      }
    }
    double perMillion = (live[live.length - 1] - live[0]) / ((sizes.get(sizes.size() - 1) - sizes.get(0)) / 1e6);
    emit("memory", "run_live_heap_per_million_keys", perMillion, "MiB", params("from_keys", sizes.get(0) + step,
        "to_keys", sizes.get(sizes.size() - 1) + step, "what", "difference of the live heaps after a full GC"));
  }

  /** Builds a table of {@code seedKeys} keys, runs the service on it, streams {@code step} new keys; its live heap. */
  private static double measure(Path work, EmbeddedKafkaBroker broker, String name, int seedKeys, int step)
      throws Exception {
    Path table = work.resolve(name + "-table");
    BackfillBench.delete(table);
    BackfillBench.delete(work.resolve(name + "-data"));
    Path seed = work.resolve("seed-" + seedKeys + ".jsonl");
    try (BufferedWriter w = Files.newBufferedWriter(seed, StandardCharsets.UTF_8)) {
      for (long k = 0; k < seedKeys; k++) {
        w.write(line(k));
        w.newLine();
      }
    }
    Path config = BenchSpecs.write(work, name, broker.bootstrapServers(), "  compaction: {interval: 2000ms}\n");
    long t0 = System.nanoTime();
    ChildProcess.Measured b = ChildProcess.run(work, name + "-backfill", "4g", List.of(), "io.dimstream.cli.Main",
        List.of("backfill", "--config", config.toString(), "--input", seed.toString(), "--table", table.toString()));
    if (b.exitCode() != 0) {
      throw new IllegalStateException("backfill of the seed table exited " + b.exitCode());
    }
    Files.delete(seed);
    emit("memory", "seed_table_build", (System.nanoTime() - t0) / 1e9, "s", params("table_keys", seedKeys,
        "how", "dimstream backfill, own JVM, -Xmx4g"));
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx4g", "-Dlogback.configurationFile=src/bench/resources/logback-bench.xml", "-cp",
        ChildProcess.classpath(), "io.dimstream.cli.Main", "run", "--config", config.toString()));
    Process run = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(work.resolve(name + "-run.log").toFile()).start();
    Sampler sampler = new Sampler(run.pid());
    Thread samplerThread = new Thread(sampler, "sampler");
    samplerThread.setDaemon(true);
    samplerThread.start();
    try {
      List<byte[]> k = new ArrayList<>(step);
      List<byte[]> v = new ArrayList<>(step);
      for (long i = seedKeys; i < seedKeys + step; i++) {
        k.add(Long.toString(i).getBytes(StandardCharsets.UTF_8));
        v.add(line(i).getBytes(StandardCharsets.UTF_8));
      }
      awaitRunning(work.resolve(name + "-run.log"), run);
      long start = System.nanoTime();
      Load.send(broker.clientProperties(), name + ".changes", k, v, 0);
      long keys = seedKeys + step;
      awaitRows(table, keys, run);
      double seconds = (System.nanoTime() - start) / 1e9;
      sampler.stop = true;
      double liveMib = liveHeapKb(run.pid()) / 1024.0;
      emit("memory", "run_live_heap", liveMib, "MiB", params("table_keys", keys, "xmx", "4g",
          "what", "heap used after jcmd GC.run"));
      emit("memory", "run_heap_used_peak", sampler.peakHeapKb.get() / 1024.0, "MiB", params("table_keys", keys,
          "xmx", "4g", "sampled", "jstat every 500 ms"));
      emit("memory", "run_rss", sampler.rssKb.get() / 1024.0, "MiB", params("table_keys", keys));
      emit("memory", "run_peak_rss", ChildProcess.vmHwmKb(run.pid()) / 1024.0, "MiB", params("table_keys", keys));
      emit("memory", "new_keys_per_s_into_table", step / seconds, "keys/s", params("table_keys", keys,
          "new_keys", step, "what", "from the first send until the table holds every new key"));
      return liveMib;
    } finally {
      sampler.stop = true;
      run.destroy(); // SIGTERM: run stops cleanly
      if (!run.waitFor(60, TimeUnit.SECONDS)) {
        run.destroyForcibly();
      }
      BackfillBench.delete(table);
    }
  }

  /** Waits for the service's "running" line (its start-up, index rebuild included, is not streaming time). */
  private static void awaitRunning(Path log, Process run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (!Files.exists(log) || !Files.readString(log).contains(" running: ")) {
      if (!run.isAlive()) {
        throw new IllegalStateException("dimstream run exited " + run.exitValue() + "; see " + log);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("dimstream run did not start in 10 minutes; see " + log);
      }
      Thread.sleep(200);
    }
  }

  /** Heap used right after a full GC of the process (its live set, near enough). */
  private static long liveHeapKb(long pid) throws IOException, InterruptedException {
    Process gc = new ProcessBuilder("jcmd", Long.toString(pid), "GC.run").redirectErrorStream(true).start();
    gc.getInputStream().readAllBytes();
    gc.waitFor();
    return Sampler.heapUsedKb(pid);
  }

  private static String line(long key) {
    return "{\"customer_id\": " + key + ", \"name\": \"customer " + key + "\", \"email\": \"c" + key
        + "@example.com\", \"city\": \"city-" + key % 50 + "\", \"tier\": \"silver\", \"updated_at\": "
        + (T0_MS + key) + ", \"op\": \"c\"}";
  }

  private static void awaitRows(Path table, long rows, Process run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (DeltaTable.open(table).latest().rowCount() < rows) {
      if (!run.isAlive()) {
        throw new IllegalStateException("dimstream run exited " + run.exitValue() + "; see memory-run.log");
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the table did not reach " + rows + " rows in 10 minutes");
      }
      Thread.sleep(1000);
    }
  }

  /** Polls heap used (jstat) and RSS (/proc) of one process. */
  private static final class Sampler implements Runnable {
    private final long pid;
    final AtomicLong peakHeapKb = new AtomicLong();
    final AtomicLong rssKb = new AtomicLong();
    volatile boolean stop;

    Sampler(long pid) {
      this.pid = pid;
    }

    @Override
    public void run() {
      while (!stop) {
        try {
          peakHeapKb.accumulateAndGet(heapUsedKb(pid), Math::max);
          rssKb.set(rssKb());
          Thread.sleep(500);
        } catch (InterruptedException e) {
          return;
        } catch (IOException | RuntimeException e) {
          // the JVM is not attachable yet or already gone; try again
        }
      }
    }

    static long heapUsedKb(long pid) throws IOException, InterruptedException {
      Process p = new ProcessBuilder("jstat", "-gc", Long.toString(pid)).redirectErrorStream(true).start();
      List<String> out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      p.waitFor();
      if (out.size() < 2) {
        return 0;
      }
      String[] head = out.get(0).trim().split("\\s+");
      String[] vals = out.get(1).trim().split("\\s+");
      double used = 0;
      for (int i = 0; i < head.length && i < vals.length; i++) {
        if (List.of("S0U", "S1U", "EU", "OU").contains(head[i])) {
          used += Double.parseDouble(vals[i]);
        }
      }
      return (long) used;
    }

    private long rssKb() throws IOException {
      for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (l.startsWith("VmRSS:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", ""));
        }
      }
      return 0;
    }
  }
}
