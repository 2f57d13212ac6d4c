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
 * Memory of {@code dimstream run} (its own JVM, against a broker in this JVM) while its table grows: the table is
 * first built by {@code dimstream backfill} with one version per key, then {@code run} takes it over and new keys
 * are streamed in steps; after each step is in the table: heap used (jstat: survivor + eden + old) at its peak
 * so far, and RSS. The full run stops at 10M keys or after its time budget, whichever comes first.
 */
public final class MemoryBench {
  private static final long T0_MS = 1_772_323_200_000L;

  private MemoryBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/memory"));
    int seedKeys = quick ? 20_000 : 1_000_000;
    int step = quick ? 10_000 : 250_000;
    long targetKeys = quick ? 50_000 : 10_000_000;
    long budgetNanos = TimeUnit.MINUTES.toNanos(quick ? 2 : 6);

    Path table = work.resolve("memory-table");
    BackfillBench.delete(table);
    BackfillBench.delete(work.resolve("memory-data"));
    Path seed = work.resolve("seed-" + seedKeys + ".jsonl");
    try (BufferedWriter w = Files.newBufferedWriter(seed, StandardCharsets.UTF_8)) {
      for (long k = 0; k < seedKeys; k++) {
        w.write(line(k));
        w.newLine();
      }
    }
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
      Path config = BenchSpecs.write(work, "memory", broker.bootstrapServers(),
          "  compaction: {interval: 2000ms}\n");
      Files.writeString(config, Files.readString(config).replace(work.resolve("memory-table").toString(),
          table.toString()));
      ChildProcess.Measured b = ChildProcess.run(work, "memory-backfill", "4g", List.of(), "io.dimstream.cli.Main",
          List.of("backfill", "--config", config.toString(), "--input", seed.toString(), "--table", table.toString()));
      if (b.exitCode() != 0) {
        throw new IllegalStateException("backfill of the seed table exited " + b.exitCode());
      }
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx4g", "-Dlogback.configurationFile=src/bench/resources/logback-bench.xml", "-cp",
          ChildProcess.classpath(), "io.dimstream.cli.Main", "run", "--config", config.toString()));
      Process run = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(work.resolve("memory-run.log").toFile()).start();
      Sampler sampler = new Sampler(run.pid());
      Thread samplerThread = new Thread(sampler, "sampler");
      samplerThread.setDaemon(true);
      samplerThread.start();
      try {
        long keys = seedKeys;
        long start = System.nanoTime();
        while (keys < targetKeys && System.nanoTime() - start < budgetNanos) {
          List<byte[]> k = new ArrayList<>(step);
          List<byte[]> v = new ArrayList<>(step);
          for (long i = keys; i < keys + step; i++) {
            k.add(Long.toString(i).getBytes(StandardCharsets.UTF_8));
            v.add(line(i).getBytes(StandardCharsets.UTF_8));
          }
          Load.send(broker.clientProperties(), "memory.changes", k, v, 0);
          keys += step;
          awaitRows(table, keys, run);
          emit("memory", "run_heap_used_peak", sampler.peakHeapKb.get() / 1024.0, "MiB", params("table_keys", keys,
              "seed_keys", seedKeys, "xmx", "4g", "sampled", "jstat every 500 ms"));
          emit("memory", "run_rss", sampler.rssKb.get() / 1024.0, "MiB", params("table_keys", keys,
              "peak_rss_mib", ChildProcess.vmHwmKb(run.pid()) / 1024));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        emit("memory", "run_peak_heap", sampler.peakHeapKb.get() / 1024.0, "MiB", params("from_keys", seedKeys,
            "to_keys", keys, "target_keys", targetKeys, "seconds", Math.round(seconds)));
        emit("memory", "run_peak_rss", ChildProcess.vmHwmKb(run.pid()) / 1024.0, "MiB", params("from_keys",
            seedKeys, "to_keys", keys));
        emit("memory", "new_keys_per_s_into_table", (keys - seedKeys) / seconds, "keys/s", params("from_keys",
            seedKeys, "to_keys", keys));
      } finally {
        sampler.stop = true;
        run.destroy(); // SIGTERM: run stops cleanly
        if (!run.waitFor(60, TimeUnit.SECONDS)) {
          run.destroyForcibly();
        }
      }
    }
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
          peakHeapKb.accumulateAndGet(heapUsedKb(), Math::max);
          rssKb.set(rssKb());
          Thread.sleep(500);
        } catch (InterruptedException e) {
          return;
        } catch (IOException | RuntimeException e) {
          // the JVM is not attachable yet or already gone; try again
        }
      }
    }

    private long heapUsedKb() throws IOException, InterruptedException {
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
