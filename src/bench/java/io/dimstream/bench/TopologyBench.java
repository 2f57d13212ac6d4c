package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;
import static io.dimstream.bench.Figures.percentile;

import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.compactor.VersionsTopicIdentity;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.CommitInterval;
import io.dimstream.service.DimensionService;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
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
import org.apache.kafka.streams.KafkaStreams;

/**
 * The streaming path on one embedded KRaft broker in this JVM: the service as {@code dimstream run} wires it
 * (exactly-once v2, compactor running, one partition) against {@link BaselineStreamsApp} on the same broker, fed
 * the same generated records by the same producer. Unpaced: events/s until every output is committed, and the
 * ratio dimstream / baseline. Paced at 1k, 2k and 5k events/s: produce → output latency per record. dimstream runs
 * with the repartition hop (the default) and, in the runs named {@code *-keyed}, with
 * {@code topics.changes_keyed_by_business_key: true}, its records keyed by the canonical business key as
 * {@code dimstream produce} keys them (param {@code keyed}). A paced run starts once the app is RUNNING with its
 * tasks, sends its first second as an uncounted primer, and logs a latency trace per 100 ms of produce time. The
 * {@code scale} runs put the same unpaced stream through a 2-partition changes topic with one instance, then two
 * (each its own data directory, one merge-on-read table).
 */
public final class TopologyBench {
  private static final long SEED = 20_261_129L;
  /** The embedded broker's request handler and network threads. */
  private static final String BROKER_THREADS = "data-plane-kafka";
  private static final int WARMUP_EVENTS = 10_000;
  /**
   * The baseline's warm-up: 10k records left its JIT cold enough that the records baseline, run later in the same
   * JVM with more work per record, ran 1.5× faster than the plain one; a minimal app's per-record path
   * is short, so it needs more records than dimstream's to be compiled.
   */
  private static final int BASELINE_WARMUP_EVENTS = 100_000;
  /** {@code -Dtopology.commit_interval_ms=N}: both apps commit every N ms instead of the service's default. */
  static final String COMMIT_INTERVAL_PROPERTY = "topology.commit_interval_ms";
  /** {@code -Dtopology.kafka=k=v,...}: see {@link #extraKafka()}. */
  static final String KAFKA_PROPERTY = "topology.kafka";
  /** False during the warm-up, whose figures are not printed. */
  private static boolean figures = true;

  private TopologyBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/topology"));
    int unpacedEvents = quick ? 20_000 : 200_000;
    int keys = quick ? 5_000 : 20_000;
    int pacedSeconds = quick ? 4 : 30; // quick: a check that every run works, kept under the 5-minute budget
    long[] rates = {1_000, 2_000, 5_000};

    // -Dtopology.runs=unpaced,paced2000 runs a subset (for a quick comparison of two builds)
    // quick mode (bench/run --quick, under 5 minutes in all) pairs keyed and baseline with 2k events/s only
    String all = quick ? "unpaced,unpaced-keyed,scale,expressions,paced1000,paced2000,paced2000-keyed,paced5000"
        : "unpaced,unpaced-keyed,unpaced-records,scale,expressions,paced1000,paced1000-keyed,paced2000,paced2000-keyed,paced5000,paced5000-keyed";
    List<String> runs = List.of(System.getProperty("topology.runs", all).split(","));

    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
      String bootstrap = broker.bootstrapServers();
      // Untimed: the first app on a fresh JVM and broker pays for class loading and JIT compilation, which the
      // steady state of a long-running service does not; both apps are warmed the same way.
      Input warm = input(WARMUP_EVENTS, keys);
      figures = false;
      dimstream(work, bootstrap, "warmup", warm, 0, false, false);
      baseline(work, broker, "warmup", input(BASELINE_WARMUP_EVENTS, keys), 0);
      figures = true;
      if (runs.contains("unpaced") || runs.contains("unpaced-keyed")) {
        // unpaced-keyed alone (an A/B of the keyed path) still runs the baseline for its ratio
        Input unpaced = input(unpacedEvents, keys);
        double dim = runs.contains("unpaced") ? dimstream(work, bootstrap, "unpaced", unpaced, 0, true, false) : 0;
        double base = baseline(work, broker, "unpaced", unpaced, 0);
        if (dim > 0) {
          emit("topology", "ratio_dimstream_to_baseline", dim / base, "x", params("events", unpacedEvents, "keys",
              keys, "keyed", false, "dimstream_events_per_s", Math.round(dim), "baseline_events_per_s",
              Math.round(base)));
        }
        if (runs.contains("unpaced-keyed")) {
          double keyed = dimstream(work, bootstrap, "unpaced-keyed", unpaced, 0, true, true);
          emit("topology", "ratio_dimstream_to_baseline", keyed / base, "x", params("events", unpacedEvents, "keys",
              keys, "keyed", true, "dimstream_events_per_s", Math.round(keyed), "baseline_events_per_s",
              Math.round(base)));
          if (dim > 0) {
            emit("topology", "ratio_keyed_to_repartitioned", keyed / dim, "x", params("events", unpacedEvents,
                "keys", keys));
          }
          if (runs.contains("unpaced-records")) {
            // the baseline writing as many records per change as dimstream's topic format asks for
            double records = baseline(work, broker, "unpaced-records", unpaced, 0, true);
            emit("topology", "ratio_records_baseline_to_baseline", records / base, "x", params("events",
                unpacedEvents, "keys", keys, "baseline_events_per_s", Math.round(base),
                "records_baseline_events_per_s", Math.round(records)));
            emit("topology", "ratio_dimstream_to_records_baseline", keyed / records, "x", params("events",
                unpacedEvents, "keys", keys, "keyed", true, "dimstream_events_per_s", Math.round(keyed),
                "records_baseline_events_per_s", Math.round(records)));
          }
        }
      }
      if (runs.contains("scale")) {
        // 2 partitions: one instance (one stream thread, both tasks) against two (one task each), one table
        Input scale = input(unpacedEvents, keys);
        Rates one = dimstream(work, bootstrap, "scale-1", scale, 0, true, false, 2, 1, null);
        Rates two = dimstream(work, bootstrap, "scale-2", scale, 0, true, false, 2, 2, null);
        emit("topology", "ratio_2_to_1_instances_to_versions", two.toVersions() / one.toVersions(), "x",
            params("events", unpacedEvents, "keys", keys, "partitions", 2, "one_events_per_s",
                Math.round(one.toVersions()), "two_events_per_s", Math.round(two.toVersions())));
        emit("topology", "ratio_2_to_1_instances_to_table", two.toTable() / one.toTable(), "x",
            params("events", unpacedEvents, "keys", keys, "partitions", 2, "one_events_per_s",
                Math.round(one.toTable()), "two_events_per_s", Math.round(two.toTable())));
      }
      if (runs.contains("expressions")) {
        expressions(work, bootstrap, input(unpacedEvents, keys));
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

  private static final int EXPRESSION_PAIRS = 2;

  /**
   * The cost of expressions in the streaming path: unpaced runs of the same stream through a spec with the
   * {@code tier_rank} column, without and with {@link BackfillBench#EXPRESSIONS} (a derived column and a skip
   * condition), in the order ABBA so that both meet the same machine; each run its own topics and table.
   */
  private static void expressions(Path work, String bootstrap, Input in) throws Exception {
    double[] seconds = new double[2];
    for (int pair = 0; pair < EXPRESSION_PAIRS; pair++) {
      // without, with, then with, without: a JIT still warming up or a neighbour's load weighs on both sides
      for (int j = 0; j < 2; j++) {
        int i = pair % 2 == 0 ? j : 1 - j;
        String run = "unpaced-" + (i == 0 ? "without" : "with") + "-expressions-" + pair;
        String expressions = i == 0 ? "" : BackfillBench.EXPRESSIONS;
        Rates r = dimstream(work, bootstrap, run, in, 0, false, false, 1, 1, expressions);
        seconds[i] += in.values().size() / r.toVersions();
      }
    }
    Map<String, Object> p = params("events", in.values().size(), "keys", in.keys(), "pairs", EXPRESSION_PAIRS,
        "expressions", "derive tier_rank (nested ternary on tier) + skip_when city/tier", "run",
        "unpaced, ABBA");
    emit("topology", "events_per_s_without_expressions", in.values().size() * EXPRESSION_PAIRS / seconds[0],
        "events/s", p);
    emit("topology", "events_per_s_with_expressions", in.values().size() * EXPRESSION_PAIRS / seconds[1],
        "events/s", p);
    emit("topology", "expressions_speed_ratio", seconds[0] / seconds[1], "x", p);
  }

  /**
   * {@code -Dtopology.kafka=producer.linger.ms=5,consumer.fetch.max.wait.ms=50}: Kafka Streams settings both apps
   * run with on top of their own, to measure a client setting before it becomes a default.
   */
  static Map<String, String> extraKafka() {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    for (String kv : System.getProperty(KAFKA_PROPERTY, "").split(",")) {
      if (!kv.isBlank()) {
        m.put(kv.substring(0, kv.indexOf('=')).strip(), kv.substring(kv.indexOf('=') + 1).strip());
      }
    }
    return m;
  }

  /**
   * The baseline's commit interval: the property's, else the service's for one transaction per change
   * ({@link CommitInterval#KEYED_MS}; the baseline, like the keyed topology, has one hop).
   */
  static long commitIntervalMs() {
    return Long.getLong(COMMIT_INTERVAL_PROPERTY, CommitInterval.KEYED_MS);
  }

  /** dimstream's commit interval: the property's, else the service's default for the topology's shape. */
  static long commitIntervalMs(boolean keyed) {
    return Long.getLong(COMMIT_INTERVAL_PROPERTY,
        keyed ? CommitInterval.KEYED_MS : CommitInterval.REPARTITIONED_MS);
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
    return dimstream(work, bootstrap, run, in, rate, check, keyed, 1, 1, null).toVersions();
  }

  /** What an unpaced run reached: events/s into the versions topic and into the table. */
  private record Rates(double toVersions, double toTable) {}

  /**
   * One run of the service: {@code instances} services with the same spec (each its own data directory and
   * Streams state, one shared merge-on-read table) on a changes topic of {@code partitions} partitions. A non-null
   * {@code expressions} adds the {@code tier_rank} column and that spec text (see {@link BackfillBench#EXPRESSIONS}).
   */
  private static Rates dimstream(Path work, String bootstrap, String run, Input in, long rate, boolean check,
      boolean keyed, int partitions, int instances, String expressions) throws Exception {
    String name = "dim-" + run;
    Path specFile = BenchSpecs.write(work, name, bootstrap, "  compaction: {interval: 1000ms}\n"
        + (partitions > 1 ? "  partitions: " + partitions + "\n" : ""));
    if (expressions != null) {
      BackfillBench.withTierRank(specFile, expressions);
    }
    if (keyed) {
      Files.writeString(specFile, "topics: {changes_keyed_by_business_key: true}\n", StandardOpenOption.APPEND);
    }
    DimensionSpec spec = DimensionSpecLoader.load(specFile);
    // keyed as `dimstream produce` keys them; computed before the clock starts, as a producer upstream would
    List<byte[]> recordKeys = keyed ? canonicalKeys(spec, in) : in.recordKeys();
    List<DimensionService> services = new ArrayList<>();
    try {
      services.add(DimensionService.start(spec, bootstrap));
      for (int i = 2; i <= instances; i++) {
        // how a further instance is configured: the same spec, its own data directory (README, Operations)
        String yaml = Files.readString(specFile).replace(name + "-data", name + "-data-" + i);
        Path other = Files.writeString(work.resolve(name + "-" + i + ".yaml"), yaml);
        services.add(DimensionService.start(DimensionSpecLoader.load(other), bootstrap));
      }
      return measure(services, spec, name, run, in, recordKeys, rate, check, keyed, partitions);
    } finally {
      for (DimensionService s : services) {
        s.close();
      }
    }
  }

  private static Rates measure(List<DimensionService> services, DimensionSpec spec, String name, String run,
      Input in, List<byte[]> recordKeys, long rate, boolean check, boolean keyed, int partitions) throws Exception {
    DimensionService service = services.get(0);
    try (OutputWatcher versions = OutputWatcher.startVersions(service.kafka(), spec.topics().versions())) {
      String streamThreads = "dimstream-" + spec.name() + "-";
      String compactorThread = "compactor-" + spec.name();
      awaitActive(name, services.stream().map(DimensionService::streams).toList());
      // A paced run measures the steady state of a running service: its first second is sent as a primer and
      // waited for (first transactions, JIT of the paths) and only the records sent after it count.
      int primer = rate > 0 ? (int) Math.min(rate, in.values().size() / 5) : 0;
      if (primer > 0) {
        Load.send(service.kafka(), spec.topics().changes(), recordKeys.subList(0, primer),
            in.values().subList(0, primer), rate);
        awaitDone(services, spec, name, versions, false);
      }
      int measured = in.values().size() - primer;
      long measuredFromMillis = System.currentTimeMillis();
      Map<Long, Long> cpuStreams = ThreadCpu.read(streamThreads);
      Map<Long, Long> cpuCompactor = ThreadCpu.read(compactorThread);
      Map<Long, Long> cpuBroker = ThreadCpu.read(BROKER_THREADS);
      Map<Long, ThreadCpu.Sample> cpuAll = ThreadCpu.all();
      Map<String, Long> requests = BrokerRequests.read();
      double sentBefore = recordsSent(services.stream().map(DimensionService::streams).toList());
      Load.Sent sent = Load.send(service.kafka(), spec.topics().changes(),
          recordKeys.subList(primer, recordKeys.size()), in.values().subList(primer, in.values().size()), rate);
      long[] done = awaitDone(services, spec, name, versions, true);
      long streamsDone = done[0];
      long tableDone = done[1];
      double toVersions = measured * 1e9 / (streamsDone - sent.startNanos());
      double toTable = measured * 1e9 / (tableDone - sent.startNanos());
      Map<String, Object> p = params("app", "dimstream", "run", run, "events", measured, "keys",
          in.keys(), "paced_events_per_s", rate, "partitions", partitions, "instances", services.size(), "eos",
          "exactly_once_v2", "compaction_interval_ms", 1000, "commit_interval_ms", commitIntervalMs(keyed),
          "produced_events_per_s", Math.round(sent.perSecond()), "keyed", keyed, "primer_events", primer);
      if (rate == 0 && figures) {
        emit("topology", "events_per_s_changes_to_versions", toVersions, "events/s", p);
        emit("topology", "events_per_s_changes_to_table", toTable, "events/s", p);
      }
      long[] producedAt = versions.producedAt();
      long[] inOrder = versions.latenciesInOrder();
      if (figures && rate > 0) {
        LatencyTrace.print(name, producedAt, inOrder, 100);
      }
      latency("dimstream", LatencyTrace.since(producedAt, inOrder, measuredFromMillis), p);
      commitLatency("dimstream", services.stream().map(DimensionService::streams).toList(), p);
      recordsSent("dimstream", services.stream().map(DimensionService::streams).toList(), sentBefore, measured, p);
      cpu("dimstream_streams", ThreadCpu.since(cpuStreams, streamThreads), measured, p);
      cpu("dimstream_compactor", ThreadCpu.since(cpuCompactor, compactorThread), measured, p);
      cpu("dimstream_broker", ThreadCpu.since(cpuBroker, BROKER_THREADS), measured, p);
      threadGroups("dimstream", run, ThreadCpu.byGroup(cpuAll), measured);
      brokerRequests("dimstream", run, BrokerRequests.since(requests), measured);
      if (figures) {
        emit("topology", "ms_last_ack_to_table_visible", (tableDone - sent.endNanos()) / 1e6, "ms", p);
      }
      if (check) {
        List<Version> expected = Scd2Fold.fold(spec, in.events());
        List<Version> actual;
        try (Stream<Version> s = DeltaTable.open(spec.service().tableStore()).latest().scan()) {
          actual = new ArrayList<>(s.toList());
        }
        actual.sort(BusinessKeys.VERSION_ORDER);
        emit("topology", "table_equals_reference_fold", actual.equals(expected) ? 1 : 0, "bool",
            params("run", run, "partitions", partitions, "instances", services.size(), "table_rows", actual.size(),
                "reference_rows", expected.size()));
      }
      return new Rates(toVersions, toTable);
    }
  }

  /**
   * Waits until every instance is RUNNING with at least one active task, so a run's clock starts on a service
   * that has its partitions, as a long-running one has, not on one still joining its group.
   */
  private static void awaitActive(String name, List<KafkaStreams> apps) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (!apps.stream().allMatch(TopologyBench::active)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(name + ": Streams not RUNNING with its tasks after 2 minutes");
      }
      Thread.sleep(20);
    }
  }

  private static boolean active(KafkaStreams app) {
    return app.state() == KafkaStreams.State.RUNNING
        && app.metadataForLocalThreads().stream().anyMatch(t -> !t.activeTasks().isEmpty());
  }

  /**
   * Waits until the topology has committed its input and the versions topic is read to its end, then (if
   * {@code table}) until the table covers the versions topic; returns both nano times ({@code -1} when not waited).
   */
  private static long[] awaitDone(List<DimensionService> services, DimensionSpec spec, String name,
      OutputWatcher versions, boolean table) throws InterruptedException {
    DimensionService service = services.get(0);
    long streamsDone = -1;
    long tableDone = -1;
    Map<Integer, Long> versionsEnd = null;
    VersionsTopicIdentity versionsId = null;
    long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
    // one admin client for the whole wait: a new one per 20 ms poll cost the broker a connection and its metadata
    // requests each time, about 5 % of the broker's CPU in an unpaced keyed run, charged to dimstream
    try (Admin admin = Admin.create(new java.util.HashMap<>(service.kafka()))) {
      while (table ? tableDone < 0 : streamsDone < 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(name + ": not caught up after 15 minutes");
        }
        for (DimensionService s : services) {
          if (s.compactor() != null && s.compactor().failure() != null) {
            throw new IllegalStateException(name + ": compactor failed", s.compactor().failure());
          }
        }
        if (streamsDone < 0 && versionsEnd == null && sourcesRead(services) && versions.atEnd()
            && CatchUp.streamsCaughtUp(admin, spec, "dimstream-" + spec.name())) {
          // every version record is committed now: its end offsets, asked once, are what the watcher must reach
          // (its own lag may be from a fetch before the last commit, and the table check takes its offsets)
          versionsEnd = committedEnds(admin, spec.topics().versions());
        }
        if (streamsDone < 0 && versionsEnd != null && versions.reached(versionsEnd)) {
          streamsDone = System.nanoTime();
        }
        if (table && streamsDone >= 0 && versionsId == null) {
          // the table's markers name the topic's id, asked once per wait
          versionsId = new VersionsTopicIdentity(spec.name(), spec.topics().versions(),
              VersionsTopicIdentity.topicId(admin, spec.topics().versions()));
        }
        if (table && streamsDone >= 0 && tableCovers(versionsId, service, versions.lastOffsets())) {
          tableDone = System.nanoTime();
        } else {
          Thread.sleep(20);
        }
      }
    }
    return new long[] {streamsDone, tableDone};
  }

  /**
   * Whether every instance's stream threads have read their source partitions to the end, from their consumers'
   * {@code records-lag} metric in this JVM: a necessary condition for {@link CatchUp#streamsCaughtUp}, checked
   * first so that the admin requests of that check (four per poll) are sent only at the run's end and not charged
   * to the broker's CPU per event all along, as they were (about as many requests as the run's produce requests).
   */
  /** A topic's read_committed end offset per partition (one ListOffsets request). */
  private static Map<Integer, Long> committedEnds(Admin admin, String topic) throws InterruptedException {
    try {
      Map<Integer, Long> ends = new java.util.HashMap<>();
      CatchUp.committedEnds(admin, List.of(topic)).forEach((tp, end) -> ends.put(tp.partition(), end));
      return ends;
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("cannot read the end offsets of " + topic, e.getCause());
    }
  }

  private static boolean sourcesRead(List<DimensionService> services) {
    for (DimensionService s : services) {
      boolean any = false;
      for (var e : s.streams().metrics().entrySet()) {
        if (e.getKey().name().equals("records-lag") && e.getKey().tags().containsKey("partition")
            && !e.getKey().tags().getOrDefault("client-id", "").contains("restore")) {
          if (!(e.getValue().metricValue() instanceof Double lag) || lag.isNaN() || lag > 0) {
            return false;
          }
          any = true;
        }
      }
      if (!any) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the table's txn markers cover the last versions record of each partition the watcher read: the
   * check of {@link CatchUp#tableCaughtUp} without reading the whole versions topic again every few ms, which took
   * CPU from the compactor it waits for.
   */
  private static boolean tableCovers(VersionsTopicIdentity versions, DimensionService service,
      Map<Integer, Long> last) {
    for (var e : last.entrySet()) {
      if (service.table().txnVersion(versions.appId(e.getKey())) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static double baseline(Path work, EmbeddedKafkaBroker broker, String run, Input in, long rate)
      throws Exception {
    return baseline(work, broker, run, in, rate, false);
  }

  /**
   * The baseline app over one input; with {@code closeOuts} it also writes each key's previous value to a second
   * topic (see {@link BaselineStreamsApp}), and its figures are named {@code baseline_records}.
   */
  private static double baseline(Path work, EmbeddedKafkaBroker broker, String run, Input in, long rate,
      boolean closeOuts) throws Exception {
    String topic = "baseline-" + run + ".changes";
    String out = "baseline-" + run + ".out";
    String closeOutTopic = closeOuts ? "baseline-" + run + ".close-outs" : null;
    String app = closeOuts ? "baseline_records" : "baseline";
    Map<String, Object> kafka = broker.clientProperties();
    try (Admin admin = Admin.create(kafka)) {
      // the same shape as the service's changes topic: one partition, replication 1
      List<NewTopic> topics = new java.util.ArrayList<>(List.of(new NewTopic(topic, 1, (short) 1),
          new NewTopic(out, 1, (short) 1)));
      if (closeOuts) {
        topics.add(new NewTopic(closeOutTopic, 1, (short) 1));
      }
      admin.createTopics(topics).all().get();
    } catch (java.util.concurrent.ExecutionException e) {
      // the admin client retries a request the broker was slow to answer; its first attempt may have created them
      if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
        throw e;
      }
    }
    try (BaselineStreamsApp base = BaselineStreamsApp.start(kafka, "baseline-" + run, topic, out, closeOutTopic,
        work.resolve("baseline-" + run + "-state"));
        OutputWatcher watcher = OutputWatcher.start(kafka, out)) {
      String streamThreads = "baseline-" + run + "-";
      awaitActive("baseline " + run, List.of(base.streams()));
      // as for dimstream: a paced run's first second is a primer, waited for and not counted
      int primer = rate > 0 ? (int) Math.min(rate, in.values().size() / 5) : 0;
      if (primer > 0) {
        Load.send(kafka, topic, in.recordKeys().subList(0, primer), in.values().subList(0, primer), rate);
        awaitCount(watcher, primer, "baseline " + run);
      }
      int measured = in.values().size() - primer;
      long measuredFromMillis = System.currentTimeMillis();
      Map<Long, Long> cpuStreams = ThreadCpu.read(streamThreads);
      Map<Long, Long> cpuBroker = ThreadCpu.read(BROKER_THREADS);
      Map<Long, ThreadCpu.Sample> cpuAll = ThreadCpu.all();
      Map<String, Long> requests = BrokerRequests.read();
      double sentBefore = recordsSent(List.of(base.streams()));
      Load.Sent sent = Load.send(kafka, topic, in.recordKeys().subList(primer, in.values().size()),
          in.values().subList(primer, in.values().size()), rate);
      awaitCount(watcher, in.values().size(), "baseline " + run);
      long done = System.nanoTime();
      double perSecond = measured * 1e9 / (done - sent.startNanos());
      long[] producedAt = watcher.producedAt();
      long[] inOrder = watcher.latenciesInOrder();
      if (figures && rate > 0) {
        LatencyTrace.print("baseline-" + run, producedAt, inOrder, 100);
      }
      Map<String, Object> p = params("app", app, "run", run, "events", measured, "keys",
          in.keys(), "paced_events_per_s", rate, "partitions", 1, "eos", "exactly_once_v2",
          "commit_interval_ms", commitIntervalMs(), "produced_events_per_s", Math.round(sent.perSecond()),
          "per_record", closeOuts ? "rocksdb get+put, the record out and the previous value out"
              : "rocksdb get+put, one record out", "primer_events", primer);
      if (rate == 0 && figures) {
        emit("topology", "events_per_s_changes_to_output", perSecond, "events/s", p);
      }
      recordsSent(app, List.of(base.streams()), sentBefore, measured, p);
      latency(app, LatencyTrace.since(producedAt, inOrder, measuredFromMillis), p);
      commitLatency(app, List.of(base.streams()), p);
      cpu(app + "_streams", ThreadCpu.since(cpuStreams, streamThreads), measured, p);
      cpu(app + "_broker", ThreadCpu.since(cpuBroker, BROKER_THREADS), measured, p);
      threadGroups(app, run, ThreadCpu.byGroup(cpuAll), measured);
      brokerRequests(app, run, BrokerRequests.since(requests), measured);
      return perSecond;
    }
  }

  /** Records the apps' producers have sent so far (Streams' producer metric {@code record-send-total}). */
  private static double recordsSent(List<KafkaStreams> apps) {
    double sent = 0;
    for (KafkaStreams app : apps) {
      for (var e : app.metrics().entrySet()) {
        if (e.getKey().name().equals("record-send-total") && e.getKey().group().equals("producer-metrics")) {
          sent += ((Number) e.getValue().metricValue()).doubleValue();
        }
      }
    }
    return sent;
  }

  /**
   * Kafka records the app wrote per change event over the run (changelog, repartition, output records): the work
   * its broker and producer do per change grows with it, whatever the app computes.
   */
  private static void recordsSent(String app, List<KafkaStreams> apps, double before, int events,
      Map<String, Object> p) {
    if (figures) {
      emit("topology", "records_written_per_change_" + app, (recordsSent(apps) - before) / events, "records", p);
    }
  }

  private static void awaitCount(OutputWatcher watcher, int count, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (watcher.count() < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + ": " + watcher.count() + " of " + count
            + " records out after 10 minutes");
      }
      Thread.sleep(10);
    }
  }

  /**
   * CPU microseconds per change event of one group of threads over the run: on a shared machine the load stretches
   * wall time but not CPU time, so this is the per-record cost to compare between builds.
   */
  private static void cpu(String what, long nanos, int events, Map<String, Object> p) {
    if (!figures) {
      return;
    }
    emit("topology", "cpu_us_per_event_" + what, nanos / 1e3 / events, "us/event", p);
  }

  /**
   * CPU microseconds per change event of every group of this JVM's threads over a run (the broker's request
   * handlers, network threads, log cleaner, scheduler, controller, coordinators; the app's stream threads and
   * producers; the load producer and the watcher), so that a broker or client setting shows where it moves CPU.
   * Only one app runs at a time, so every thread's CPU in the window is this run's. Groups under 0.1 µs per event
   * are left out.
   */
  private static void threadGroups(String app, String run, Map<String, Long> nanosByGroup, int events) {
    if (!figures) {
      return;
    }
    for (Map.Entry<String, Long> e : nanosByGroup.entrySet()) {
      double us = e.getValue() / 1e3 / events;
      if (us >= 0.1) {
        emit("topology", "cpu_us_per_event_thread_group", us, "us/event", params("app", app, "run", run,
            "group", e.getKey(), "events", events));
      }
    }
  }

  /** The broker's requests per change event over a run, by API: what the broker's CPU per event is made of. */
  private static void brokerRequests(String app, String run, Map<String, Long> byApi, int events) {
    if (!figures) {
      return;
    }
    for (Map.Entry<String, Long> e : byApi.entrySet()) {
      emit("topology", "broker_requests_per_event", (double) e.getValue() / events, "requests/event",
          params("app", app, "run", run, "api", e.getKey(), "events", events, "requests", e.getValue()));
    }
  }

  /** The canonical business key bytes of each record, as {@code dimstream produce} keys a keyed changes topic. */
  private static List<byte[]> canonicalKeys(DimensionSpec spec, Input in) {
    KeyedChanges router = new KeyedChanges(spec);
    return in.values().stream().map(v -> router.route(null, v, 1).orElseThrow().key()).toList();
  }

  /**
   * Kafka Streams' own {@code commit-latency-avg/max} of the stream threads (ms since the app started): how long a
   * commit takes, flush of the producer and the transaction's end included; under exactly-once it adds to every
   * record's latency.
   */
  private static void commitLatency(String app, List<KafkaStreams> apps, Map<String, Object> p) {
    if (!figures) {
      return;
    }
    double avg = 0;
    double max = 0;
    int n = 0;
    for (KafkaStreams a : apps) {
      for (var e : a.metrics().entrySet()) {
        if (!e.getKey().group().equals("stream-thread-metrics") || !(e.getValue().metricValue() instanceof Double v)
            || v.isNaN()) {
          continue;
        }
        if (e.getKey().name().equals("commit-latency-avg")) {
          avg += v;
          n++;
        } else if (e.getKey().name().equals("commit-latency-max")) {
          max = Math.max(max, v);
        }
      }
    }
    if (n > 0) {
      emit("topology", app + "_commit_latency_avg", avg / n, "ms", p);
      emit("topology", app + "_commit_latency_max", max, "ms", p);
    }
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
