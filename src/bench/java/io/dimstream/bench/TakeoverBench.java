package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.model.Version;
import io.dimstream.model.VersionRecordHeaders;
import io.dimstream.table.DeltaTable;
import io.dimstream.topology.EventStoreRecords;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * {@code dimstream run} taking over a table it did not write: a table of N keys (about 1.35 versions each) is built
 * by {@code dimstream backfill}; then {@code run} starts on it in its own JVM ({@code -Xmx1g}) against a broker in
 * this JVM, with a fresh data directory, and writes every version row into the event store's changelog (two passes
 * over the table: closing deletes, then opening upserts) before Kafka Streams restores RocksDB from it. Measured
 * from the process start: the takeover's end (its log line "Took over table version"), the topology started (the
 * service's "running" line), the changelog restored (Kafka Streams' "Finished restoring" line) and the first applied
 * event (an update of a taken-over key, produced as soon as the changes topic exists, seen on the versions topic);
 * the takeover's passes (its phases on {@code /health}, polled every 100 ms); then a batch of updates of taken-over
 * keys into the table, the peak RSS and the heap (the child's GC log). The service is stopped and started again on
 * the same data directory: its time to running and to the next applied event, and whether it took over again (it
 * must not: the table names its changelog). The baseline in the same run: a minimal Kafka Streams app restoring the
 * same changelog records (copied to its own changelog, unmeasured) into a RocksDB store; and a plain scan of the
 * table in this JVM, what each of the takeover's two passes reads.
 */
public final class TakeoverBench {
  private static final long T0_MS = 1_772_323_200_000L;
  private static final long DAY_MS = 86_400_000L;
  private static final String[] TIERS = {"bronze", "silver", "gold"};
  private static final String HEAP = "1g";
  private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
  static final Pattern ENDPOINT = Pattern.compile("Query endpoint on \\w+://([^/]+):(\\d+)/");
  private static final Pattern RESTORED = Pattern.compile("Finished restoring changelog \\S*-events-changelog\\S*"
      + " .*?(\\d+) records");
  private static final Pattern GC_HEAP = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");
  private static final ObjectMapper JSON = new ObjectMapper();

  private TakeoverBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/takeover"));
    List<Integer> sizes = quick ? List.of(10_000) : List.of(1_000_000, 10_000_000);
    if (System.getProperty("takeover.keys") != null) {
      sizes = Stream.of(System.getProperty("takeover.keys").split(",")).map(Integer::parseInt).toList();
    }
    int updates = quick ? 10_000 : 100_000;
    Path logback = logbackConfig(work);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
      for (int i = 0; i < sizes.size(); i++) {
        measure(work, broker, logback, "takeover" + i, sizes.get(i), updates);
      }
    }
  }

  private static void measure(Path work, EmbeddedKafkaBroker broker, Path logback, String name, int keys,
      int updates) throws Exception {
    Path table = work.resolve(name + "-table");
    Path data = work.resolve(name + "-data");
    BackfillBench.delete(table);
    BackfillBench.delete(data);
    Path config = BenchSpecs.write(work, name, broker.bootstrapServers(), "  compaction: {interval: 1000ms}\n");

    // the table: N creates, then an update (another tier, a day later) of 35 % of the keys
    Path input = work.resolve(name + "-input.jsonl");
    long events = writeInput(input, keys);
    String buildHeap = keys > 2_000_000 ? "8g" : keys > 200_000 ? "4g" : "1g";
    ChildProcess.Measured b = ChildProcess.run(work, name + "-backfill", buildHeap, List.of(), "io.dimstream.cli.Main",
        List.of("backfill", "--config", config.toString(), "--input", input.toString(), "--table", table.toString()));
    if (b.exitCode() != 0) {
      throw new IllegalStateException("backfill of the table exited " + b.exitCode() + "; see "
          + work.resolve(name + "-backfill.log"));
    }
    Files.delete(input);
    long rows = DeltaTable.open(table).latest().rowCount();
    Map<String, Object> p = params("keys", keys, "versions", rows, "xmx", HEAP, "updates", updates);
    emit("takeover", "table_build", b.wallSeconds(), "s", params("keys", keys, "versions", rows, "events", events,
        "how", "dimstream backfill, own JVM, -Xmx" + buildHeap));

    // what one pass of the takeover reads: the table's rows, scanned in this JVM
    long s0 = System.nanoTime();
    long scanned = 0;
    try (Stream<Version> vs = DeltaTable.open(table).latest().scan()) {
      for (var it = vs.iterator(); it.hasNext(); it.next()) {
        scanned++;
      }
    }
    double scan = (System.nanoTime() - s0) / 1e9;
    emit("takeover", "table_scan", scan, "s", params("keys", keys, "versions", scanned,
        "what", "one DeltaTable scan of every row, in the bench JVM: what each of the takeover's two passes reads"));

    Map<String, Object> kafka = broker.clientProperties();
    String changes = name + ".changes";
    String versions = name + ".versions";
    String changelog = EventStoreRecords.changelogTopic("dimstream-" + name);

    // first start: the takeover
    Path log1 = work.resolve(name + "-run-1.log");
    Path gc1 = work.resolve(name + "-run-1-gc.log");
    long start1 = System.currentTimeMillis();
    Process run = start(config, logback, log1, gc1, name + "-run-1");
    Phases phases = new Phases(log1, run);
    Thread poller = new Thread(phases, "health-poller");
    poller.setDaemon(true);
    poller.start();
    double toFirst;
    double toTookOver;
    double toRunning;
    double toRestored;
    long restoredRecords;
    long hwmFirst;
    try {
      awaitTopic(kafka, changes, run, log1);
      Load.send(kafka, changes, List.of(key(0)), List.of(update(0, keys, "diamond")), 0);
      long first = firstRecordAfter(kafka, versions, 0, run, log1, Duration.ofMinutes(30));
      toFirst = (first - start1) / 1e3;
      hwmFirst = ChildProcess.vmHwmKb(run.pid());
      toTookOver = (logTime(log1, "Took over table version").orElseThrow() - start1) / 1e3;
      toRunning = (logTime(log1, "dimstream " + name + " running").orElseThrow() - start1) / 1e3;
      Optional<Long> restored = logTime(log1, "Finished restoring changelog " + changelog);
      toRestored = restored.map(t -> (t - start1) / 1e3).orElse(-1.0);
      restoredRecords = restoredRecords(log1);
      phases.stop = true;
      long taking = logTime(log1, "Taking over the table of").orElseThrow();
      emit("takeover", "to_takeover_end", toTookOver, "s", with(p, "what",
          "process start to the log line 'Took over table version' (JVM start, broker and table checks included)"));
      emit("takeover", "takeover", toTookOver - (taking - start1) / 1e3, "s", with(p, "what",
          "the log line 'Taking over the table' to 'Took over table version': both passes and the producer's flush"));
      if (phases.closing > 0 && phases.opening > 0) {
        long tookOver = logTime(log1, "Took over table version").orElseThrow();
        emit("takeover", "pass_closing_deletes", (phases.opening - phases.closing) / 1e3, "s", with(p, "what",
            "pass 1 of 4 (scan of the closed rows, closing deletes sent), from /health polled every 100 ms"));
        emit("takeover", "pass_opening_upserts", (tookOver - phases.opening) / 1e3, "s", with(p, "what",
            "passes 2 to 4 (a scan: opening upserts and the rows to the versions topic sent; the backfill's kept"
                + " events; the archive; the base and the flush), from /health to the 'Took over' line"));
        emit("takeover", "before_passes", (phases.closing - taking) / 1e3, "s", with(p, "what",
            "'Taking over' to pass 1: waiting for the compactor, the changelog's creation"));
      }
      emit("takeover", "to_running", toRunning, "s", with(p, "what",
          "process start to the log line 'dimstream <name> running' (Kafka Streams started, restore under way)"));
      if (toRestored > 0) {
        emit("takeover", "to_restored", toRestored, "s", with(p, "what",
            "process start to Kafka Streams' 'Finished restoring changelog' of the event store"));
        emit("takeover", "restore", toRestored - toTookOver, "s", with(p, "records", restoredRecords, "what",
            "'Took over' to 'Finished restoring changelog': the topology's start and RocksDB's restore"));
      }
      emit("takeover", "to_first_applied_event", toFirst, "s", with(p, "what",
          "process start until the versions topic holds the record of an update produced at start"));

      // a batch of updates of taken-over keys, then what the process held
      List<byte[]> k = new ArrayList<>(updates);
      List<byte[]> v = new ArrayList<>(updates);
      for (long i = 1; i <= updates; i++) {
        k.add(key(i % keys));
        v.add(update(i, keys, "platinum"));
      }
      long expected = rows + 1 + updates;
      long u0 = System.nanoTime();
      Load.send(kafka, changes, k, v, 0);
      awaitRows(table, expected, run, log1);
      double seconds = (System.nanoTime() - u0) / 1e9;
      emit("takeover", "events_per_s_updates_into_table", updates / seconds, "events/s", with(p, "what",
          "updates of taken-over keys, from the first send until the table holds them (compaction every 1 s)"));
      emit("takeover", "peak_rss_to_first_event", hwmFirst / 1024.0, "MiB", with(p, "what",
          "VmHWM when the first event was applied: JVM, RocksDB, takeover and restore"));
      emit("takeover", "peak_rss", ChildProcess.vmHwmKb(run.pid()) / 1024.0, "MiB", with(p, "what",
          "VmHWM after the updates"));
    } finally {
      phases.stop = true;
      stop(run);
    }
    long[] heap = heap(gc1);
    emit("takeover", "peak_heap", heap[0], "MiB", with(p, "what", "largest heap before a GC (child's GC log)"));
    emit("takeover", "peak_heap_after_gc", heap[1], "MiB", with(p, "what",
        "largest heap after a GC (child's GC log): what the process kept"));
    long changelogRecords = endOffset(kafka, changelog);

    // second start on the same data directory: no takeover
    Path log2 = work.resolve(name + "-run-2.log");
    long versionsEnd = endOffset(kafka, versions);
    long start2 = System.currentTimeMillis();
    run = start(config, logback, log2, work.resolve(name + "-run-2-gc.log"), name + "-run-2");
    try {
      Load.send(kafka, changes, List.of(key((updates + 1) % keys)), List.of(update(updates + 1, keys, "diamond")), 0);
      long first = firstRecordAfter(kafka, versions, versionsEnd, run, log2, Duration.ofMinutes(30));
      double toRunning2 = (logTime(log2, "dimstream " + name + " running").orElseThrow() - start2) / 1e3;
      String text = Files.readString(log2);
      boolean kept = text.contains("holds the table's history");
      boolean again = text.contains("Taking over the table of");
      emit("takeover", "restart_to_running", toRunning2, "s", with(p, "what",
          "second start, same data directory: process start to 'dimstream <name> running'"));
      emit("takeover", "restart_to_first_applied_event", (first - start2) / 1e3, "s", with(p, "what",
          "second start: process start until the versions topic holds an update produced at start"));
      emit("takeover", "restart_kept_state", kept ? 1 : 0, "flag", with(p, "what",
          "1 when the second start logged that the state holds the table's history"));
      emit("takeover", "restart_took_over_again", again ? 1 : 0, "flag", with(p, "what",
          "1 when the second start took over again (it must not)"));
    } finally {
      stop(run);
    }

    // the baseline: a minimal Kafka Streams app restores as many records into RocksDB
    Baseline base = baseline(work, kafka, name, changelog, restoredRecords);
    Map<String, Object> bp = params("keys", keys, "records", base.records(), "what",
        "a minimal Kafka Streams app (exactly-once v2, one persistent RocksDB store) restoring a copy of the"
            + " event store's changelog, in the bench JVM: start() to onRestoreEnd");
    emit("takeover", "baseline_restore", base.seconds(), "s", bp);
    emit("takeover", "baseline_restore_records_per_s", base.records() / base.seconds(), "records/s", bp);
    emit("takeover", "changelog_records", changelogRecords, "records", with(p, "what",
        "end offset of the event store's changelog after the first run (takeover, then the updates)"));
    if (toRestored > 0) {
      emit("takeover", "ratio_restore_to_baseline", (toRestored - toTookOver) / base.seconds(), "x", with(p,
          "what", "dimstream's restore ('Took over' to 'Finished restoring') over the baseline's"));
    }
    emit("takeover", "ratio_first_event_to_baseline", toFirst / base.seconds(), "x", with(p, "what",
        "the whole start (process start to the first applied event) over the baseline's restore alone"));
    BackfillBench.delete(table);
    BackfillBench.delete(data);
  }

  /** N creates and an update of 35 % of the keys; returns the number of lines. */
  private static long writeInput(Path file, int keys) throws IOException {
    long n = 0;
    try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file),
        StandardCharsets.UTF_8), 1 << 20)) {
      StringBuilder s = new StringBuilder(256);
      for (long k = 0; k < keys; k++) {
        s.setLength(0);
        line(s, k, "city-" + k % 50, TIERS[(int) (k % 3)], T0_MS + k * 7 % 86_400_000L, "c");
        w.append(s).append('\n');
        n++;
      }
      for (long k = 0; k < keys; k++) {
        if (k % 20 < 7) {
          s.setLength(0);
          line(s, k, "city-" + k % 50, TIERS[(int) ((k + 1) % 3)], T0_MS + DAY_MS + k * 7 % 86_400_000L, "u");
          w.append(s).append('\n');
          n++;
        }
      }
    }
    return n;
  }

  private static void line(StringBuilder s, long key, String city, String tier, long at, String op) {
    s.append("{\"customer_id\": ").append(key).append(", \"name\": \"customer ").append(key)
        .append("\", \"email\": \"c").append(key).append("@example.com\", \"city\": \"").append(city)
        .append("\", \"tier\": \"").append(tier).append("\", \"updated_at\": ").append(at).append(", \"op\": \"")
        .append(op).append("\"}");
  }

  static byte[] key(long k) {
    return Long.toString(k).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The {@code i}-th update of the run: key {@code i % keys}, a new tier, ten days after the table's versions plus
   * {@code i} ms (so that a key updated twice changes each time: the tiers of the updates that follow differ).
   */
  private static byte[] update(long i, int keys, String tier) {
    StringBuilder s = new StringBuilder(200);
    long k = i % keys;
    line(s, k, "city-" + k % 50, tier, T0_MS + 10 * DAY_MS + i, "u");
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A logback config like the bench's, with the takeover's, the service's and Kafka Streams' restore lines. */
  static Path logbackConfig(Path work) throws IOException {
    Path f = work.resolve("logback-takeover.xml");
    Files.writeString(f, """
        <configuration>
          <statusListener class="ch.qos.logback.core.status.NopStatusListener"/>
          <turboFilter class="io.dimstream.broker.KafkaNoiseFilter"/>
          <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
            <target>System.err</target>
            <encoder><pattern>%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{20} %msg%n</pattern></encoder>
          </appender>
          <logger name="io.dimstream" level="WARN"/>
          <logger name="io.dimstream.service.DimensionService" level="INFO"/>
          <logger name="io.dimstream.service.TableTakeover" level="INFO"/>
          <logger name="org.apache.kafka" level="ERROR"/>
          <logger name="org.apache.kafka.streams.processor.internals.StoreChangelogReader" level="INFO"/>
          <logger name="org.apache.kafka.streams.KafkaStreams" level="INFO"/>
          <logger name="kafka" level="ERROR"/>
          <logger name="state.change.logger" level="ERROR"/>
          <logger name="org.apache.parquet" level="ERROR"/>
          <logger name="org.apache.hadoop" level="ERROR"/>
          <root level="WARN"><appender-ref ref="STDERR"/></root>
        </configuration>
        """);
    return f;
  }

  static Process start(Path config, Path logback, Path log, Path gcLog, String jfrName) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + HEAP, "-Xlog:gc:file=" + gcLog, "-Dlogback.configurationFile=" + logback, "-cp",
        ChildProcess.classpath()));
    String jfrDir = System.getenv("BENCH_JFR_DIR");
    if (jfrDir != null && !jfrDir.isBlank()) {
      cmd.add("-XX:StartFlightRecording=settings=profile,filename=" + Path.of(jfrDir, jfrName + ".jfr")
          .toAbsolutePath());
    }
    cmd.addAll(List.of("io.dimstream.cli.Main", "run", "--config", config.toString()));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** SIGTERM (run stops cleanly), then waits. */
  static void stop(Process run) throws InterruptedException {
    run.destroy();
    if (!run.waitFor(120, TimeUnit.SECONDS)) {
      run.destroyForcibly();
      run.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** The wall-clock millis of the first log line holding {@code text}. */
  static Optional<Long> logTime(Path log, String text) throws IOException {
    for (String l : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      if (l.contains(text) && l.length() > 23) {
        try {
          return Optional.of(LocalDateTime.parse(l.substring(0, 23), LOG_TIME).atZone(ZoneId.systemDefault())
              .toInstant().toEpochMilli());
        } catch (RuntimeException e) {
          // a continuation line: not ours
        }
      }
    }
    return Optional.empty();
  }

  private static long restoredRecords(Path log) throws IOException {
    Matcher m = RESTORED.matcher(Files.readString(log));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  static void awaitTopic(Map<String, Object> kafka, String topic, Process run, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    try (Admin admin = Admin.create(kafka)) {
      while (!admin.listTopics().names().get().contains(topic)) {
        alive(run, log, deadline, "create " + topic);
        Thread.sleep(50);
      }
    }
  }

  /** The wall-clock millis at which a read_committed consumer saw a record of {@code topic} at or past {@code from}. */
  static long firstRecordAfter(Map<String, Object> kafka, String topic, long from, Process run, Path log,
      Duration limit) throws Exception {
    awaitTopic(kafka, topic, run, log);
    long deadline = System.nanoTime() + limit.toNanos();
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka)) {
      List<TopicPartition> tps = c.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(tps);
      tps.forEach(tp -> c.seek(tp, tps.size() == 1 ? from : 0));
      while (true) {
        for (var r : c.poll(Duration.ofMillis(50))) {
          // the takeover writes the table's rows to a versions topic that lacked them; those are not applied events
          if (r.headers().lastHeader(VersionRecordHeaders.FROM_TABLE) == null) {
            return System.currentTimeMillis();
          }
        }
        alive(run, log, deadline, "apply an event");
      }
    }
  }

  static void alive(Process run, Path log, long deadline, String what) {
    if (!run.isAlive()) {
      throw new IllegalStateException("dimstream run exited " + run.exitValue() + "; see " + log);
    }
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("dimstream run did not " + what + " in time; see " + log);
    }
  }

  static KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> kafka) {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  static long endOffset(Map<String, Object> kafka, String topic) {
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka)) {
      List<TopicPartition> tps = c.partitionsFor(topic).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      return c.endOffsets(tps).values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private static void awaitRows(Path table, long rows, Process run, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
    while (DeltaTable.open(table).latest().rowCount() < rows) {
      alive(run, log, deadline, "write the updates into the table");
      Thread.sleep(250);
    }
  }

  /** The largest heap before and after a GC in a child's GC log, MiB. */
  static long[] heap(Path gcLog) throws IOException {
    long before = 0;
    long after = 0;
    if (Files.exists(gcLog)) {
      for (String line : Files.readAllLines(gcLog)) {
        Matcher m = GC_HEAP.matcher(line);
        if (m.find()) {
          before = Math.max(before, Long.parseLong(m.group(1)));
          after = Math.max(after, Long.parseLong(m.group(2)));
        }
      }
    }
    return new long[] {before, after};
  }

  private static Map<String, Object> with(Map<String, Object> p, Object... kv) {
    Map<String, Object> m = new java.util.LinkedHashMap<>(p);
    m.putAll(params(kv));
    return m;
  }

  /** The takeover's passes as {@code /health} shows them: when each began (wall-clock millis, 0 if never seen). */
  private static final class Phases implements Runnable {
    private final Path log;
    private final Process run;
    volatile boolean stop;
    volatile long closing;
    volatile long opening;

    Phases(Path log, Process run) {
      this.log = log;
      this.run = run;
    }

    @Override
    public void run() {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      URI health = null;
      while (!stop && run.isAlive()) {
        try {
          if (health == null) {
            Matcher m = ENDPOINT.matcher(Files.exists(log) ? Files.readString(log) : "");
            if (m.find()) {
              String host = m.group(1).equals("0.0.0.0") || m.group(1).contains(":") ? "127.0.0.1" : m.group(1);
              health = URI.create("http://" + host + ":" + m.group(2) + "/health");
            }
          } else {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.ofString());
            long now = System.currentTimeMillis();
            JsonNode n = JSON.readTree(r.body());
            String t = n.path("details").path("takeover").asText("");
            if (t.contains("(1 of 4)") && closing == 0) {
              closing = now;
            }
            if (t.contains("(2 of 4)") && opening == 0) {
              opening = now;
            }
          }
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        } catch (IOException | RuntimeException e) {
          // not serving yet
        }
      }
    }
  }

  private record Baseline(long records, double seconds) {}

  /**
   * Copies the first {@code records} records of the changelog (all when not known) to a minimal app's store
   * changelog (not timed), then times that app's restore.
   */
  private static Baseline baseline(Path work, Map<String, Object> kafka, String name, String changelog,
      long records) throws Exception {
    String appId = name + "-baseline";
    String store = "store";
    String target = appId + "-" + store + "-changelog";
    String in = appId + "-in";
    try (Admin admin = Admin.create(kafka)) {
      admin.createTopics(List.of(new NewTopic(target, 1, (short) 1).configs(Map.of("cleanup.policy", "compact")),
          new NewTopic(in, 1, (short) 1))).all().get();
    }
    Map<String, Object> pp = new HashMap<>(kafka);
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.LINGER_MS_CONFIG, 50);
    pp.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    AtomicReference<Exception> failed = new AtomicReference<>();
    long copied = 0;
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka);
        KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(pp, new ByteArraySerializer(),
            new ByteArraySerializer())) {
      TopicPartition tp = new TopicPartition(changelog, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      // the takeover's records (the changelog's first ones), not those of the updates after it
      long end = records > 0 ? records : c.endOffsets(List.of(tp)).get(tp);
      while (c.position(tp) < end) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          if (r.offset() >= end) {
            break;
          }
          prod.send(new ProducerRecord<>(target, 0, r.key(), r.value()), (md, e) -> {
            if (e != null) {
              failed.compareAndSet(null, e);
            }
          });
          copied++;
        }
      }
      prod.flush();
    }
    if (failed.get() != null) {
      throw failed.get();
    }
    Topology t = new Topology();
    t.addSource("in", new ByteArrayDeserializer(), new ByteArrayDeserializer(), in);
    t.addProcessor("put", Put::new, "in");
    t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(store), Serdes.ByteArray(),
        Serdes.ByteArray()), "put");
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    Path stateDir = work.resolve(appId + "-state");
    BackfillBench.delete(stateDir);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    AtomicLong restored = new AtomicLong();
    AtomicLong endNanos = new AtomicLong();
    long t0;
    try (KafkaStreams streams = new KafkaStreams(t, p)) {
      streams.setGlobalStateRestoreListener(new StateRestoreListener() {
        @Override
        public void onRestoreStart(TopicPartition tp, String s, long from, long to) {}

        @Override
        public void onBatchRestored(TopicPartition tp, String s, long end, long n) {}

        @Override
        public void onRestoreEnd(TopicPartition tp, String s, long total) {
          restored.addAndGet(total);
          endNanos.set(System.nanoTime());
        }
      });
      t0 = System.nanoTime();
      streams.start();
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
      while (endNanos.get() == 0 || streams.state() != KafkaStreams.State.RUNNING) {
        if (System.nanoTime() > deadline || streams.state() == KafkaStreams.State.ERROR) {
          throw new IllegalStateException("the baseline did not restore in time: " + streams.state());
        }
        Thread.sleep(20);
      }
      streams.close(Duration.ofMinutes(1));
    }
    BackfillBench.delete(stateDir);
    System.err.println("takeover baseline: copied " + copied + " records, restored " + restored.get());
    return new Baseline(restored.get(), (endNanos.get() - t0) / 1e9);
  }

  /** One put per record: what the store is for; the restore is what is measured. */
  private static final class Put implements Processor<byte[], byte[], Void, Void> {
    private KeyValueStore<byte[], byte[]> store;

    @Override
    public void init(ProcessorContext<Void, Void> context) {
      store = context.getStateStore("store");
    }

    @Override
    public void process(Record<byte[], byte[]> r) {
      store.put(r.key(), r.value());
    }
  }
}
