package io.dimstream.bench;

import static io.dimstream.bench.CustomerRows.row;
import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.JvmGauges.loadavg;
import static io.dimstream.bench.JvmGauges.retainedHeapMb;

import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import io.dimstream.table.TableOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.stream.Stream;

/**
 * One dimension of N keys (full: 100M; quick: 1M; {@code -Dkeys100m.keys=} to choose) on one instance: a
 * merge-on-read table of one open version per key plus a closed one for a tenth of the keys, built with the bulk
 * loader in this JVM; then {@code dimstream run} on it in its own JVM with {@code -Xmx1g} against a broker in this
 * JVM. Measured: the takeover (process start until an update produced at start is applied), the live heap after a full
 * GC with its histogram (in the bench's log), the peak RSS, commits of 100 changed keys spread over the key range
 * (their {@code executionTimeMs}), a key's history through the HTTP endpoint, a clean stop and start with the state
 * intact until a new change is committed, the compactor's live heap with its index loaded (in this JVM), and a sample
 * of 10,000 keys' histories against the reference (the rows built plus the updates sent).
 */
public final class Keys100mBench {
  private static final long CLOSE_GEN = 1_000;
  /** The updates come long after every built version: a day's worth of hours past the newest. */
  private static final long UPDATE_MS = (CustomerRows.T0 + (CLOSE_GEN + 24) * CustomerRows.HOUR) / 1000;
  private static final int SAMPLE = 10_000;

  private Keys100mBench() {}

  /** The name the broker gives its log cleaner threads. */
  private static final String LOG_CLEANER = "kafka-log-cleaner-thread";

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/keys100m"));
    int keys = Integer.getInteger("keys100m.keys", quick ? 1_000_000 : 100_000_000);
    String name = "keys100m";
    Path table = work.resolve(name + "-table");
    Path data = work.resolve(name + "-data");
    BackfillBench.delete(table);
    BackfillBench.delete(data);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
      Path config = BenchSpecs.write(work, name, broker.bootstrapServers(), "  compaction: {interval: 1000ms}\n");
      DimensionSpec spec = DimensionSpecLoader.load(config);
      build(table, spec, keys);
      Map<String, Object> p = params("keys", keys, "xmx", "1g");
      emit(name, "keys", keys, "keys", params("versions", keys + keys / 10));
      Path logback = logback(work);
      Map<String, Object> kafka = broker.clientProperties();
      Map<Long, Long> updated = new HashMap<>(); // key -> the update's time, ms
      Random random = new Random(11);

      // first start: the takeover, until an update produced at start is applied
      Path log1 = work.resolve(name + "-run-1.log");
      long start1 = System.currentTimeMillis();
      // the broker runs in this JVM: what its log cleaner spends compacting the changelog and the versions topic
      Map<Long, Long> cleanerBefore = ThreadCpu.read(LOG_CLEANER);
      Process run = TakeoverBench.start(config, logback, log1, work.resolve(name + "-run-1-gc.log"), name + "-1");
      try {
        TakeoverBench.awaitTopic(kafka, name + ".changes", run, log1);
        send(kafka, name, List.of(0L), updated);
        long first = TakeoverBench.firstRecordAfter(kafka, name + ".versions", 0, run, log1, Duration.ofHours(2));
        emit(name, "takeover_s", (first - start1) / 1e3, "s", with(p, "what",
            "first start on the table until the versions topic holds an update produced at start"));
        emit(name, "broker_log_cleaner_cpu_s", ThreadCpu.since(cleanerBefore, LOG_CLEANER) / 1e9, "s", with(p,
            "what", "CPU of the broker's log cleaner (in the bench JVM) from the first start to takeover_s, compacting"
                + " the changelog and the versions topic the takeover wrote", "takeover_s", (first - start1) / 1e3));
        awaitRows(table, keys + keys / 10 + 1, run, log1);

        // commits of 100 changed keys spread over the key range
        long before = DeltaTable.open(table).latest().version();
        for (int c = 0; c < 10; c++) {
          List<Long> batch = new ArrayList<>();
          while (batch.size() < 100) {
            long k = random.nextInt(keys);
            if (!updated.containsKey(k) && !batch.contains(k)) {
              batch.add(k);
            }
          }
          long rows = DeltaTable.open(table).latest().rowCount();
          send(kafka, name, batch, updated);
          awaitRows(table, rows + 100, run, log1);
        }
        List<Double> ms = new ArrayList<>();
        List<Long> rowsPerCommit = new ArrayList<>();
        for (CommitSummary s : DeltaTable.open(table).history()) {
          if (s.version() > before && s.operation().equals("MERGE")
              && s.operationMetrics().containsKey("executionTimeMs")) {
            ms.add(Double.parseDouble(s.operationMetrics().get("executionTimeMs")));
            rowsPerCommit.add(Long.parseLong(s.operationMetrics().getOrDefault("numOutputRows", "0")));
          }
        }
        emit(name, "commit_100_median_ms", median(ms), "ms", with(p, "commits", ms.size(), "output_rows",
            rowsPerCommit.toString(), "what", "executionTimeMs of the compactor's commits of 10 x 100 updates of"
                + " keys spread over the key range (each batch committed before the next is sent)"));

        // a key's history through the HTTP endpoint
        String base = endpoint(log1);
        HttpClient http = HttpClient.newHttpClient();
        List<Double> lookups = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          long k = random.nextInt(keys);
          long t0 = System.nanoTime();
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/dimensions/" + name
              + "/keys/" + k + "/history")).build(), HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() != 200) {
            throw new IllegalStateException("history of key " + k + " answered " + r.statusCode() + ": " + r.body());
          }
          lookups.add((System.nanoTime() - t0) / 1e6);
        }
        emit(name, "key_lookup_median_ms", median(lookups.subList(5, lookups.size())), "ms", with(p, "lookups",
            lookups.size() - 5, "what", "GET /dimensions/<name>/keys/<key>/history of random keys, after 5 warm-ups"));

        // the live heap after a full GC, with the histogram in the log
        String histogram = JvmGauges.classHistogram(run.pid());
        System.err.println("keys100m: heap histogram of dimstream run after a full GC:\n"
            + histogram.lines().limit(40).reduce("", (a, b) -> a + b + "\n"));
        emit(name, "service_live_heap_mib", JvmGauges.histogramBytes(histogram) / 1048576.0, "MiB", with(p, "what",
            "live heap of dimstream run after a full GC (jcmd GC.class_histogram), table open and index loaded"));
        emit(name, "service_peak_rss_mib", ChildProcess.vmHwmKb(run.pid()) / 1024.0, "MiB", with(p, "what",
            "VmHWM of dimstream run: JVM, RocksDB (event store and position index), takeover and restore"));
      } finally {
        TakeoverBench.stop(run);
      }

      // a clean stop and start with intact state, until a new change is committed
      Path log2 = work.resolve(name + "-run-2.log");
      long rows = DeltaTable.open(table).latest().rowCount();
      long start2 = System.currentTimeMillis();
      run = TakeoverBench.start(config, logback, log2, work.resolve(name + "-run-2-gc.log"), name + "-2");
      try {
        TakeoverBench.awaitTopic(kafka, name + ".changes", run, log2);
        long k;
        do {
          k = random.nextInt(keys);
        } while (updated.containsKey(k));
        send(kafka, name, List.of(k), updated);
        awaitRows(table, rows + 1, run, log2);
        String text = Files.readString(log2);
        emit(name, "restart_to_first_commit_s", (System.currentTimeMillis() - start2) / 1e3, "s", with(p,
            "took_over_again", text.contains("Taking over the table of"), "index_loaded",
            text.contains("loaded the position index"), "what",
            "clean stop, start on the same data directory, until the table holds a change produced at start"));
      } finally {
        TakeoverBench.stop(run);
      }

      compactorHeap(table, data.resolve("position-index-copy"), keys, p);
      sample(table, spec, keys, updated, random, p);
    }
    BackfillBench.delete(table);
    BackfillBench.delete(data);
  }

  /** The compactor's live heap in this JVM: the table open and its index (kept on disk) loaded. */
  private static void compactorHeap(Path table, Path indexDir, int keys, Map<String, Object> p) {
    TableOptions options = TableOptions.defaults().withPositionIndexDir(indexDir);
    DeltaTable build = DeltaTable.open(table, options);
    build.newCommit(Operation.MERGE).txns(Map.of("keys100m-bench", 1L)).apply(PositionIndexBench.NOTHING); // builds
    build.closeLocalState();
    long before = retainedHeapMb();
    DeltaTable t = DeltaTable.open(table, options);
    t.newCommit(Operation.MERGE).txns(Map.of("keys100m-bench", 2L)).apply(PositionIndexBench.NOTHING); // loads it
    long after = retainedHeapMb();
    emit("keys100m", "compactor_live_heap_mib", Math.max(0, after - before), "MiB", with(p, "measured_mib",
        after - before, "position_index_heap_bytes",
        t.positionIndexBytes(), "what", "heap retained after a full GC by the table opened as the compactor opens it,"
            + " its position index loaded from disk, minus before"));
    t.closeLocalState();
  }

  /** 10,000 random keys (the updated ones among them) read back in one scan, against the rows built and sent. */
  private static void sample(Path table, DimensionSpec spec, int keys, Map<Long, Long> updated, Random random,
      Map<String, Object> p) {
    Set<Long> sample = new HashSet<>(updated.keySet());
    while (sample.size() < Math.min(SAMPLE, keys)) {
      sample.add((long) random.nextInt(keys));
    }
    Map<Long, List<String>> found = new HashMap<>();
    try (Stream<Version> rows = DeltaTable.open(table).latest().scan()) {
      rows.forEach(v -> {
        long k = (Long) v.key().values().get(0);
        if (sample.contains(k)) {
          found.computeIfAbsent(k, x -> new ArrayList<>()).add(text(v));
        }
      });
    }
    long wrong = 0;
    for (long k : sample) {
      List<String> expected = expected(k, updated.get(k));
      List<String> actual = found.getOrDefault(k, List.of()).stream().sorted().toList();
      if (!actual.equals(expected.stream().sorted().toList())) {
        wrong++;
        if (wrong <= 5) {
          System.err.println("keys100m: key " + k + " differs: expected " + expected + ", table " + actual);
        }
      }
    }
    emit("keys100m", "table_equals_reference_sample", wrong == 0 ? 1 : 0, "flag", with(p, "sampled", sample.size(),
        "updated_in_sample", updated.size(), "keys_differing", wrong));
  }

  /** The versions of key {@code k}: as built, then closed by its update (if any) and the update's version. */
  private static List<String> expected(long k, Long updateMs) {
    List<String> out = new ArrayList<>();
    if (k % 10 == 0) {
      out.add(text(row(k, k % 720, CLOSE_GEN)));
    }
    Version open = row(k, CLOSE_GEN, null);
    if (updateMs == null) {
      out.add(text(open));
      return out;
    }
    out.add(text(open) + " closed at " + updateMs * 1000);
    out.add(k + " " + updateMs * 1000 + " open " + List.of("customer " + k, "c" + k + "@example.com",
        "city-" + (k + CLOSE_GEN) % 50, "platinum"));
    return out;
  }

  private static String text(Version v) {
    String head = v.key().values().get(0) + " " + v.validFrom().first() + " ";
    return v.isCurrent() ? head + "open " + v.attributes() : head + "open " + v.attributes() + " closed at "
        + v.validTo().first();
  }

  /** Builds the table with the bulk loader: every key's open version, and a closed one before it for a tenth. */
  private static void build(Path dir, DimensionSpec spec, int keys) throws Exception {
    long start = System.nanoTime();
    DeltaTable t = DeltaTable.create(dir, spec, spec.tableProperties());
    BucketedLoad.load(t, keys, k -> k % 10 == 0 ? List.of(row(k, k % 720, CLOSE_GEN), row(k, CLOSE_GEN, null))
        : List.of(row(k, CLOSE_GEN, null)));
    emit("keys100m", "table_build_s", (System.nanoTime() - start) / 1e9, "s", params("keys", keys, "files",
        t.latest().fileCount(), "how", "the bulk loader in the bench JVM", "loadavg", loadavg()));
  }

  /** Produces an update of each key (a new tier, so a new version) and records its time. */
  private static void send(Map<String, Object> kafka, String name, List<Long> keys, Map<Long, Long> updated)
      throws Exception {
    List<byte[]> k = new ArrayList<>();
    List<byte[]> v = new ArrayList<>();
    for (long key : keys) {
      long at = UPDATE_MS + key % 1000;
      updated.put(key, at);
      k.add(TakeoverBench.key(key));
      v.add(("{\"customer_id\": " + key + ", \"name\": \"customer " + key + "\", \"email\": \"c" + key
          + "@example.com\", \"city\": \"city-" + (key + CLOSE_GEN) % 50 + "\", \"tier\": \"platinum\", "
          + "\"updated_at\": " + at + ", \"op\": \"u\"}").getBytes(StandardCharsets.UTF_8));
    }
    Load.send(kafka, name + ".changes", k, v, 0);
  }

  private static void awaitRows(Path table, long rows, Process run, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
    while (DeltaTable.open(table).latest().rowCount() < rows) {
      TakeoverBench.alive(run, log, deadline, "write the updates into the table");
      Thread.sleep(100);
    }
  }

  private static String endpoint(Path log) throws IOException {
    Matcher m = TakeoverBench.ENDPOINT.matcher(Files.readString(log));
    if (!m.find()) {
      throw new IllegalStateException("no query endpoint line in " + log);
    }
    return "http://" + m.group(1) + ":" + m.group(2);
  }

  private static Path logback(Path work) throws IOException {
    Path base = TakeoverBench.logbackConfig(work);
    Path f = work.resolve("logback-keys100m.xml");
    Files.writeString(f, Files.readString(base).replace("<logger name=\"io.dimstream\" level=\"WARN\"/>",
        "<logger name=\"io.dimstream\" level=\"WARN\"/>\n"
            + "  <logger name=\"io.dimstream.table.internal.index.CurrentRowIndex\" level=\"INFO\"/>"));
    return f;
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return -1;
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static Map<String, Object> with(Map<String, Object> p, Object... kv) {
    Map<String, Object> m = new java.util.LinkedHashMap<>(p);
    m.putAll(params(kv));
    return m;
  }
}
