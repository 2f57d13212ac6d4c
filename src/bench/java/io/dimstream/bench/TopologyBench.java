package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.Figures.percentile;

import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.config.DimensionSpec;
import io.dimstream.config.DimensionSpecLoader;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.KeyedChanges;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The streaming path on one embedded KRaft broker in this JVM: the service as {@code dimstream run} wires it
 * (exactly-once v2, compactor running, one partition) against {@link BaselineStreamsApp} on the same broker, fed
 * the same generated records by the same producer. Unpaced: events/s until every output is committed, and the
 * ratio dimstream / baseline. Paced at 1k, 2k and 5k events/s: produce → output latency per record. dimstream runs
 * with the repartition hop (the default) and, in the runs named {@code *-keyed}, with
 * {@code topics.changes_keyed_by_business_key: true}, its records keyed by the canonical business key as
 * {@code dimstream produce} keys them (param {@code keyed}).
 */
public final class TopologyBench {
  private static final long SEED = 20_261_129L;
  /** The embedded broker's request handler and network threads. */
  private static final String BROKER_THREADS = "data-plane-kafka";
  private static final int WARMUP_EVENTS = 10_000;
  /** {@code -Dtopology.commit_interval_ms=N}: both apps commit every N ms instead of the service's default. */
  static final String COMMIT_INTERVAL_PROPERTY = "topology.commit_interval_ms";
  /** False during the warm-up, whose figures are not printed. */
  private static boolean figures = true;

  private TopologyBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/topology"));
    int unpacedEvents = quick ? 20_000 : 200_000;
    int keys = quick ? 5_000 : 20_000;
    int pacedSeconds = quick ? 6 : 30;
    long[] rates = {1_000, 2_000, 5_000};

    // -Dtopology.runs=unpaced,paced2000 runs a subset (for a quick comparison of two builds)
    List<String> runs = List.of(System.getProperty("topology.runs", "unpaced,unpaced-keyed,paced1000,paced2000,paced2000-keyed,paced5000")
        .split(","));

    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
      String bootstrap = broker.bootstrapServers();
      // Untimed: the first app on a fresh JVM and broker pays for class loading and JIT compilation, which the
      // steady state of a long-running service does not; both apps are warmed the same way.
      Input warm = input(WARMUP_EVENTS, keys);
      figures = false;
      dimstream(work, bootstrap, "warmup", warm, 0, false, false);
      baseline(work, broker, "warmup", warm, 0);
      figures = true;
      if (runs.contains("unpaced")) {
        Input unpaced = input(unpacedEvents, keys);
        double dim = dimstream(work, bootstrap, "unpaced", unpaced, 0, true, false);
        double base = baseline(work, broker, "unpaced", unpaced, 0);
        emit("topology", "ratio_dimstream_to_baseline", dim / base, "x", params("events", unpacedEvents, "keys",
            keys, "keyed", false, "dimstream_events_per_s", Math.round(dim), "baseline_events_per_s",
            Math.round(base)));
        if (runs.contains("unpaced-keyed")) {
          double keyed = dimstream(work, bootstrap, "unpaced-keyed", unpaced, 0, true, true);
          emit("topology", "ratio_dimstream_to_baseline", keyed / base, "x", params("events", unpacedEvents, "keys",
              keys, "keyed", true, "dimstream_events_per_s", Math.round(keyed), "baseline_events_per_s",
              Math.round(base)));
          emit("topology", "ratio_keyed_to_repartitioned", keyed / dim, "x", params("events", unpacedEvents,
              "keys", keys));
        }
      }
      for (long rate : rates) {
        if (!runs.contains("paced" + rate)) {
          continue;
        }
        Input in = input((int) (rate * pacedSeconds), keys);
        dimstream(work, bootstrap, "paced" + rate, in, rate, false, false);
        if (runs.contains("paced" + rate + "-keyed")) {
          dimstream(work, bootstrap, "paced" + rate + "-keyed", in, rate, false, true);
        }
        if (!quick || rate == 2_000) {
          baseline(work, broker, "paced" + rate, in, rate);
        }
      }
    }
  }

  /** The commit interval both apps run with: the property's, else {@link DimensionService#COMMIT_INTERVAL_MS}. */
  static long commitIntervalMs() {
    return Long.getLong(COMMIT_INTERVAL_PROPERTY, DimensionService.COMMIT_INTERVAL_MS);
  }

  /** A generated stream with the record keys a keyed CDC topic would carry (the business key). */
  private record Input(int keys, List<ChangeEvent> events, List<byte[]> recordKeys, List<byte[]> values) {}

  private static Input input(int events, int keys) {
    ChangeStreams.GeneratedStream s = ChangeStreams.random(BenchSpecs.customers(), SEED).keys(keys).events(events)
        .late(0.05).duplicates(0.02).noChange(0.05).deletes(0.01).generate();
    List<byte[]> k = s.events().stream().map(e -> e.key().values().get(0).toString()
        .getBytes(StandardCharsets.UTF_8)).toList();
    List<byte[]> v = s.jsonLines().stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList();
    return new Input(keys, s.events(), k, v);
  }

  private static double dimstream(Path work, String bootstrap, String run, Input in, long rate, boolean check,
      boolean keyed) throws Exception {
    String name = "dim-" + run;
    Path specFile = BenchSpecs.write(work, name, bootstrap, "  compaction: {interval: 1000ms}\n");
    if (keyed) {
      Files.writeString(specFile, "topics: {changes_keyed_by_business_key: true}\n", StandardOpenOption.APPEND);
    }
    DimensionSpec spec = DimensionSpecLoader.load(specFile);
    // keyed as `dimstream produce` keys them; computed before the clock starts, as a producer upstream would
    List<byte[]> recordKeys = keyed ? canonicalKeys(spec, in) : in.recordKeys();
    try (DimensionService service = DimensionService.start(spec, bootstrap);
        OutputWatcher versions = OutputWatcher.start(service.kafka(), spec.topics().versions())) {
      String streamThreads = "dimstream-" + spec.name() + "-";
      String compactorThread = "compactor-" + spec.name();
      Map<Long, Long> cpuStreams = ThreadCpu.read(streamThreads);
      Map<Long, Long> cpuCompactor = ThreadCpu.read(compactorThread);
      Map<Long, Long> cpuBroker = ThreadCpu.read(BROKER_THREADS);
      Load.Sent sent = Load.send(service.kafka(), spec.topics().changes(), recordKeys, in.values(), rate);
      long streamsDone = -1;
      long tableDone = -1;
      long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
      while (tableDone < 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(name + ": not caught up after 15 minutes");
        }
        if (service.compactor().failure() != null) {
          throw new IllegalStateException(name + ": compactor failed", service.compactor().failure());
        }
        if (streamsDone < 0 && CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
            && versions.atEnd()) {
          streamsDone = System.nanoTime();
        }
        if (streamsDone >= 0 && CatchUp.tableCaughtUp(service.kafka(), spec, service.table())) {
          tableDone = System.nanoTime();
        } else {
          Thread.sleep(20);
        }
      }
      long[] lat = versions.latencies();
      double toVersions = in.values().size() * 1e9 / (streamsDone - sent.startNanos());
      double toTable = in.values().size() * 1e9 / (tableDone - sent.startNanos());
      Map<String, Object> p = params("app", "dimstream", "run", run, "events", in.values().size(), "keys",
          in.keys(), "paced_events_per_s", rate, "partitions", 1, "eos", "exactly_once_v2",
          "compaction_interval_ms", 1000, "commit_interval_ms", commitIntervalMs(), "produced_events_per_s",
          Math.round(sent.perSecond()), "keyed", keyed);
      if (rate == 0 && figures) {
        emit("topology", "events_per_s_changes_to_versions", toVersions, "events/s", p);
        emit("topology", "events_per_s_changes_to_table", toTable, "events/s", p);
      }
      latency("dimstream", lat, p);
      cpu("dimstream_streams", ThreadCpu.since(cpuStreams, streamThreads), in, p);
      cpu("dimstream_compactor", ThreadCpu.since(cpuCompactor, compactorThread), in, p);
      cpu("dimstream_broker", ThreadCpu.since(cpuBroker, BROKER_THREADS), in, p);
      if (figures) {
        emit("topology", "ms_last_ack_to_table_visible", (tableDone - sent.endNanos()) / 1e6, "ms", p);
      }
      if (check) {
        List<Version> expected = Scd2Fold.fold(spec, in.events());
        List<Version> actual;
        try (Stream<Version> s = DeltaTable.open(spec.service().tablePath()).latest().scan()) {
          actual = new ArrayList<>(s.toList());
        }
        actual.sort(BusinessKeys.VERSION_ORDER);
        emit("topology", "table_equals_reference_fold", actual.equals(expected) ? 1 : 0, "bool",
            params("run", run, "table_rows", actual.size(), "reference_rows", expected.size()));
      }
      return toVersions;
    }
  }

  private static double baseline(Path work, EmbeddedKafkaBroker broker, String run, Input in, long rate)
      throws Exception {
    String topic = "baseline-" + run + ".changes";
    String out = "baseline-" + run + ".out";
    Map<String, Object> kafka = broker.clientProperties();
    try (Admin admin = Admin.create(kafka)) {
      // the same shape as the service's changes topic: one partition, replication 1
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1), new NewTopic(out, 1, (short) 1))).all().get();
    }
    try (BaselineStreamsApp app = BaselineStreamsApp.start(kafka, "baseline-" + run, topic, out,
        work.resolve("baseline-" + run + "-state"));
        OutputWatcher watcher = OutputWatcher.start(kafka, out)) {
      String streamThreads = "baseline-" + run + "-";
      Map<Long, Long> cpuStreams = ThreadCpu.read(streamThreads);
      Map<Long, Long> cpuBroker = ThreadCpu.read(BROKER_THREADS);
      Load.Sent sent = Load.send(kafka, topic, in.recordKeys(), in.values(), rate);
      long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
      while (watcher.count() < in.values().size()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("baseline " + run + ": " + watcher.count() + " of "
              + in.values().size() + " records out after 10 minutes");
        }
        Thread.sleep(10);
      }
      long done = System.nanoTime();
      double perSecond = in.values().size() * 1e9 / (done - sent.startNanos());
      Map<String, Object> p = params("app", "baseline", "run", run, "events", in.values().size(), "keys",
          in.keys(), "paced_events_per_s", rate, "partitions", 1, "eos", "exactly_once_v2",
          "commit_interval_ms", commitIntervalMs(), "produced_events_per_s", Math.round(sent.perSecond()), "per_record", "rocksdb get+put, one record out");
      if (rate == 0 && figures) {
        emit("topology", "events_per_s_changes_to_output", perSecond, "events/s", p);
      }
      latency("baseline", watcher.latencies(), p);
      cpu("baseline_streams", ThreadCpu.since(cpuStreams, streamThreads), in, p);
      cpu("baseline_broker", ThreadCpu.since(cpuBroker, BROKER_THREADS), in, p);
      return perSecond;
    }
  }

  /**
   * CPU microseconds per change event of one group of threads over the run: on a shared machine the load stretches
   * wall time but not CPU time, so this is the per-record cost to compare between builds.
   */
  private static void cpu(String what, long nanos, Input in, Map<String, Object> p) {
    if (!figures) {
      return;
    }
    emit("topology", "cpu_us_per_event_" + what, nanos / 1e3 / in.values().size(), "us/event", p);
  }

  /** The canonical business key bytes of each record, as {@code dimstream produce} keys a keyed changes topic. */
  private static List<byte[]> canonicalKeys(DimensionSpec spec, Input in) {
    KeyedChanges router = new KeyedChanges(spec);
    return in.values().stream().map(v -> router.route(null, v, 1).orElseThrow().key()).toList();
  }

  private static void latency(String app, long[] sorted, Map<String, Object> p) {
    if (!figures) {
      return;
    }
    Map<String, Object> q = new java.util.LinkedHashMap<>(p);
    q.put("output_records", sorted.length);
    emit("topology", app + "_latency_p50", percentile(sorted, 50), "ms", q);
    emit("topology", app + "_latency_p99", percentile(sorted, 99), "ms", q);
    emit("topology", app + "_latency_max", percentile(sorted, 100), "ms", q);
  }
}
