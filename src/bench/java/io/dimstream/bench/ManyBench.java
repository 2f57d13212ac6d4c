package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.JvmGauges.loadavg;

import io.dimstream.broker.EmbeddedKafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Small dimensions in one process against the same dimensions as separate processes: {@code dimstream run --config
 * <directory>} with 1, 10 and 50 dimensions (quick: 1 and 5), each in its own JVM with {@code -Xmx1g} against a broker
 * in this JVM; then the largest count as one process per dimension (full: 10 of them, quick: 5, each alone with
 * {@code -Xmx1g}; the figures per dimension are what 50 would cost each). Per run: the start (process start until
 * every dimension runs), the live heap after a full GC, the RSS, the threads, and the produce-to-versions-topic
 * latency (p50, p99) while every dimension takes 200 changes/s for 20 s, after 10 s of the same unmeasured; with the
 * most dimensions in one process, the others' latency while one drains a backlog.
 */
public final class ManyBench {
  private static final int RATE = 200;
  private static final int SECONDS = 20;
  private static final int WARM_UP_SECONDS = 10;

  private ManyBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Path.of(args.length > 1 ? args[1] : "target/bench/many");
    // a fresh broker and state every run: topics left by an earlier run would make every change a late one
    BackfillBench.delete(work);
    Files.createDirectories(work);
    int[] counts = quick ? new int[] {1, 5} : new int[] {1, 10, 50};
    int separate = quick ? 5 : 10;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
      for (int n : counts) {
        Path dir = specs(work, "one" + n, n, broker.bootstrapServers());
        List<Process> runs = List.of(start(work, "one" + n, dir));
        measure(broker, runs, dir, n, "one_process", work.resolve("one" + n + ".log"),
            n == counts[counts.length - 1] ? (quick ? 100_000 : 1_000_000) : 0);
      }
      Path dir = specs(work, "sep", separate, broker.bootstrapServers());
      List<Process> runs = new ArrayList<>();
      List<Path> files;
      try (var in = Files.list(dir)) {
        files = in.sorted().toList();
      }
      for (int i = 0; i < files.size(); i++) {
        runs.add(start(work, "sep-" + i, files.get(i)));
      }
      measure(broker, runs, dir, separate, "separate_processes", work.resolve("sep-0.log"), 0);
    }
  }

  /** Writes {@code n} specs of small dimensions to {@code <work>/<tag>/}, sharing one data directory. */
  private static Path specs(Path work, String tag, int n, String bootstrap) throws IOException {
    Path dir = Files.createDirectories(work.resolve(tag));
    String example = Files.readString(BenchSpecs.EXAMPLE);
    for (int i = 0; i < n; i++) {
      String name = tag + "_" + i;
      String yaml = example.replaceFirst("(?m)^name: customers", "name: " + name)
          + "\nservice:\n  data_dir: " + work.resolve(tag + "-data") + "\n  http: {port: 0}\n"
          + "  compaction: {interval: 1000ms}\n  kafka: {bootstrap.servers: \"" + bootstrap + "\"}\n";
      Files.writeString(dir.resolve(name + ".yaml"), yaml);
    }
    return dir;
  }

  private static Process start(Path work, String name, Path config) throws IOException {
    return TakeoverBench.start(config, TakeoverBench.logbackConfig(work), work.resolve(name + ".log"),
        work.resolve(name + "-gc.log"), name);
  }

  /**
   * @param backlog when positive, after the figures above: a backlog of that many changes sent at once to the first
   *     dimension, then the others' latency at 200 changes/s each while it drains
   */
  private static void measure(EmbeddedKafkaBroker broker, List<Process> runs, Path dir, int n, String how,
      Path firstLog, int backlog) throws Exception {
    long t0 = System.currentTimeMillis();
    Map<String, Object> kafka = broker.clientProperties();
    List<String> names;
    try (var in = Files.list(dir)) {
      names = in.map(p -> p.getFileName().toString().replaceFirst("\\.yaml$", "")).sorted().toList();
    }
    try {
      for (String name : names) {
        TakeoverBench.awaitTopic(kafka, name + ".versions", runs.get(0), firstLog);
      }
      // every dimension runs once its versions topic exists and its endpoint answers; the log line says when
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (!allRunning(dir, names, runs.size())) {
        for (Process p : runs) {
          if (!p.isAlive()) {
            throw new IllegalStateException("a dimstream run exited; see the logs in " + dir.getParent());
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the dimensions did not all start in 10 minutes");
        }
        Thread.sleep(100);
      }
      double startS = (System.currentTimeMillis() - t0) / 1e3;
      Map<String, Object> p = params("dimensions", n, "how", how, "processes", runs.size(), "xmx_per_process", "1g");
      emit("many", "start_s", startS, "s", with(p, "what", "process start until every dimension logged running"));

      // 200 changes/s per dimension, all at once: 10 s unmeasured (the JIT compiles the paths a change takes, the
      // first transactions are set up), then 20 s with the versions topics watched for their latency
      paced(kafka, names, 0, WARM_UP_SECONDS);
      long measuredFrom = System.currentTimeMillis();
      List<OutputWatcher> watchers = new ArrayList<>();
      for (String name : names) {
        watchers.add(OutputWatcher.start(kafka, name + ".versions",
            OutputWatcher.versionRecords(r -> r.timestamp() >= measuredFrom)));
      }
      List<Map<String, Double>> threadsBefore = new ArrayList<>();
      for (Process r : runs) {
        threadsBefore.add(ThreadGroupCpu.sample(r.pid()));
      }
      long benchCpuBefore = JvmGauges.processCpuNanos();
      long windowFrom = System.nanoTime();
      paced(kafka, names, RATE * WARM_UP_SECONDS, SECONDS);
      cpuByThreadGroup(runs, threadsBefore, names, (System.nanoTime() - windowFrom) / 1e9,
          (JvmGauges.processCpuNanos() - benchCpuBefore) / 1e9, p);
      long[] all = latencies(watchers);
      emit("many", "latency_p50_ms", Figures.percentile(all, 50), "ms", with(p, "records", all.length,
          "what", RATE + " changes/s per dimension for " + SECONDS + " s after " + WARM_UP_SECONDS
              + " s of the same: produce to visible on the versions topic"));
      emit("many", "latency_p99_ms", Figures.percentile(all, 99), "ms", with(p, "records", all.length,
          "loadavg", loadavg()));

      long heap = 0;
      long rss = 0;
      long hwm = 0;
      long threads = 0;
      for (Process r : runs) {
        heap += JvmGauges.histogramBytes(JvmGauges.classHistogram(r.pid()));
        rss += statusKb(r.pid(), "VmRSS");
        hwm += statusKb(r.pid(), "VmHWM");
        threads += statusKb(r.pid(), "Threads");
      }
      emit("many", "live_heap_mib", heap / 1048576.0, "MiB", with(p, "per_dimension_mib",
          Math.round(heap / 1048576.0 / n * 10) / 10.0, "what", "after a full GC (jcmd GC.class_histogram), all processes"));
      emit("many", "rss_mib", rss / 1024.0, "MiB", with(p, "per_dimension_mib", Math.round(rss / 1024.0 / n),
          "peak_mib", hwm / 1024, "what", "VmRSS after the load, all processes"));
      emit("many", "threads", threads, "threads", with(p, "per_dimension", Math.round(threads * 10.0 / n) / 10.0));
      if (backlog > 0) {
        backlog(kafka, names, backlog, p);
      }
    } finally {
      for (Process r : runs) {
        TakeoverBench.stop(r);
      }
    }
  }

  /**
   * Where the cores went while the changes were sent: the dimstream processes' CPU by thread group (the eight largest),
   * their total, and the bench JVM's (the broker, the producers and the watchers), each in cores (CPU seconds per
   * second of the window).
   */
  private static void cpuByThreadGroup(List<Process> runs, List<Map<String, Double>> before, List<String> names,
      double windowS, double benchCpuS, Map<String, Object> p) throws Exception {
    Map<String, Double> groups = new java.util.HashMap<>();
    for (int i = 0; i < runs.size(); i++) {
      ThreadGroupCpu.byGroup(before.get(i), ThreadGroupCpu.sample(runs.get(i).pid()), names)
          .forEach((g, ms) -> groups.merge(g, ms, Double::sum));
    }
    double total = groups.values().stream().mapToDouble(Double::doubleValue).sum() / 1e3;
    emit("many", "cpu_cores_dimstream", total / windowS, "cores", with(p, "window_s", windowS,
        "what", "CPU of the dimstream processes' threads while " + RATE + " changes/s per dimension were sent"));
    emit("many", "cpu_cores_bench_jvm", benchCpuS / windowS, "cores", with(p, "window_s", windowS,
        "what", "CPU of the bench JVM meanwhile: the embedded broker, the producers and the versions watchers"));
    groups.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(8)
        .forEach(e -> emit("many", "cpu_cores_thread_group", e.getValue() / 1e3 / windowS, "cores",
            with(p, "group", e.getKey(), "window_s", windowS)));
  }

  /**
   * Whether one dimension's backlog starves the others: {@code backlog} changes sent unpaced to the first dimension,
   * then 200 changes/s to each other one for 20 s; their produce-to-versions-topic latency (to compare with the same
   * run without a backlog), and how long the first took to drain its backlog onto its versions topic.
   */
  private static void backlog(Map<String, Object> kafka, List<String> names, int backlog, Map<String, Object> p)
      throws Exception {
    String loaded = names.get(0);
    List<String> others = names.subList(1, names.size());
    long phase = System.currentTimeMillis();
    OutputWatcher drained = OutputWatcher.start(kafka, loaded + ".versions",
        OutputWatcher.versionRecords(r -> r.timestamp() >= phase));
    int next = RATE * (WARM_UP_SECONDS + SECONDS); // newer than every change sent so far: each a new version
    Load.send(kafka, loaded + ".changes", keys(next, backlog), changes(next, backlog), 0);
    double sentS = (System.currentTimeMillis() - phase) / 1e3;
    long othersFrom = System.currentTimeMillis();
    List<OutputWatcher> watchers = new ArrayList<>();
    for (String name : others) {
      watchers.add(OutputWatcher.start(kafka, name + ".versions",
          OutputWatcher.versionRecords(r -> r.timestamp() >= othersFrom)));
    }
    paced(kafka, others, next, SECONDS);
    long[] all = latencies(watchers);
    Map<String, Object> q = with(p, "backlog_changes", backlog, "backlog_sent_s", sentS, "others", others.size(),
        "records", all.length, "what", RATE + " changes/s to each other dimension for " + SECONDS
            + " s while the first drains its backlog", "loadavg", loadavg());
    emit("many", "backlog_others_latency_p50_ms", Figures.percentile(all, 50), "ms", q);
    emit("many", "backlog_others_latency_p99_ms", Figures.percentile(all, 99), "ms", q);
    // drained: every change opens a version (and closes one), so once as many records as changes arrived, the first
    // time the count stops growing for 3 s marks the end
    long drainUntil = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    long lastGrowth = System.currentTimeMillis();
    int seen = -1;
    while (System.nanoTime() < drainUntil) {
      int now = drained.count();
      if (now != seen) {
        seen = now;
        lastGrowth = System.currentTimeMillis();
      } else if (now >= backlog && System.currentTimeMillis() - lastGrowth > 3_000) {
        break;
      }
      Thread.sleep(200);
    }
    double drainS = (lastGrowth - phase) / 1e3;
    emit("many", "backlog_drain_s", drainS, "s", with(p, "backlog_changes", backlog, "versions_seen", seen,
        "what", "backlog sent until its last version record is on the versions topic"));
    drained.close();
  }

  /**
   * The latencies every watcher saw, sorted, once each has seen at least a record per change sent and then nothing new
   * for 3 s (every change opens a version, most also close one, and the topic's compaction may drop a close-out's
   * earlier open record, so the exact count is not known), or after 5 minutes; then closes the watchers.
   */
  private static long[] latencies(List<OutputWatcher> watchers) throws InterruptedException {
    long[] all = new long[0];
    long waitUntil = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    for (OutputWatcher w : watchers) {
      int seen = -1;
      long lastGrowth = System.nanoTime();
      while (System.nanoTime() < waitUntil) {
        int now = w.count();
        if (now != seen) {
          seen = now;
          lastGrowth = System.nanoTime();
        } else if (now >= (long) RATE * SECONDS && System.nanoTime() - lastGrowth > TimeUnit.SECONDS.toNanos(3)) {
          break;
        }
        Thread.sleep(100);
      }
      long[] l = w.latencies();
      long[] merged = Arrays.copyOf(all, all.length + l.length);
      System.arraycopy(l, 0, merged, all.length, l.length);
      all = merged;
      w.close();
    }
    Arrays.sort(all);
    return all;
  }

  private static boolean allRunning(Path dir, List<String> names, int processes) throws IOException {
    Path logs = dir.getParent();
    StringBuilder text = new StringBuilder();
    try (var in = Files.list(logs)) {
      for (Path log : in.filter(f -> f.toString().endsWith(".log") && !f.toString().endsWith("-gc.log")).toList()) {
        text.append(Files.readString(log));
      }
    }
    for (String name : names) {
      if (!text.toString().contains("dimstream " + name + " running")) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@value #RATE} changes/s to each of {@code names} for {@code seconds} s, all at once: changes {@code from} on of
   * the sequence {@link #change} gives.
   */
  private static void paced(Map<String, Object> kafka, List<String> names, int from, int seconds) throws Exception {
    ExecutorService senders = Executors.newFixedThreadPool(names.size());
    try {
      List<Future<?>> sent = new ArrayList<>();
      for (String name : names) {
        sent.add(senders.submit(() -> Load.send(kafka, name + ".changes", keys(from, RATE * seconds),
            changes(from, RATE * seconds), RATE)));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    } finally {
      senders.shutdown();
    }
  }

  /** The record keys of changes {@code from} to {@code from + count - 1}. */
  private static List<byte[]> keys(int from, int count) {
    List<byte[]> out = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      out.add(TakeoverBench.key(i % 1000));
    }
    return out;
  }

  /** Changes {@code from} to {@code from + count - 1} of the sequence {@link #change} gives. */
  private static List<byte[]> changes(int from, int count) {
    List<byte[]> out = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      out.add(change(i));
    }
    return out;
  }

  /**
   * The {@code i}th of in-order changes of 1,000 keys: key {@code i % 1000}, a new tier (a new version), at second
   * {@code i}.
   */
  private static byte[] change(int i) {
    String[] tiers = {"bronze", "silver", "gold"};
    long t0 = 1_772_323_200_000L;
    int k = i % 1000;
    return ("{\"customer_id\": " + k + ", \"name\": \"customer " + k + "\", \"email\": \"c" + k
        + "@example.com\", \"city\": \"city-" + k % 50 + "\", \"tier\": \"" + tiers[(i / 1000) % 3]
        + "\", \"updated_at\": " + (t0 + i * 1000L) + ", \"op\": \"u\"}").getBytes(StandardCharsets.UTF_8);
  }

  private static long statusKb(long pid, String field) throws IOException {
    for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (l.startsWith(field + ":")) {
        return Long.parseLong(l.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }

  private static Map<String, Object> with(Map<String, Object> p, Object... kv) {
    Map<String, Object> m = new java.util.LinkedHashMap<>(p);
    m.putAll(params(kv));
    return m;
  }
}
