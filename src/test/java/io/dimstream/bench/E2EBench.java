package io.dimstream.bench;

import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.cli.ServiceHandle;
import io.dimstream.config.DimensionSpec;
import io.dimstream.config.DimensionSpecLoader;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * End-to-end benchmark of the streaming path in one JVM: embedded broker, the service as {@code dimstream run}
 * wires it, a generated change stream produced as fast as the producer goes. Prints JSON lines on stdout.
 *
 * <p>Latency produce → versions topic: every version record keeps the timestamp of the change record that caused
 * it (the producer's CreateTime, carried through the repartition topic), and a read_committed consumer notes
 * when it sees the record; both clocks are this JVM's. Table-visible: from the last producer acknowledgement
 * until the table's {@code txn} markers cover every record on the versions topic.
 *
 * <p>Usage: {@code E2EBench [events=200000] [keys=20000] [workDir] [partitions=1] [intervalMs=1000] [rate=0]};
 * {@code rate} paces the producer at that many events per second (0: as fast as it goes, which measures
 * throughput, and latency under a backlog; a rate below the throughput measures the pipeline's own latency).
 */
public final class E2EBench {
  private E2EBench() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int keys = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    Path work = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("dimstream-e2e-bench-");
    int partitions = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    long intervalMs = args.length > 4 ? Long.parseLong(args[4]) : 1_000;
    long rate = args.length > 5 ? Long.parseLong(args[5]) : 0;
    Files.createDirectories(work);

    DimensionSpec spec = spec(work, partitions, intervalMs);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 20_261_129L).keys(keys).events(events)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    List<byte[]> values = stream.jsonLines().stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList();
    emit("config", ordered("events", events, "keys", keys, "partitions", partitions, "compaction_interval_ms",
        intervalMs, "produce_rate_per_s", rate, "cores", Runtime.getRuntime().availableProcessors(), "max_heap_mb",
        Runtime.getRuntime().maxMemory() >> 20, "work_dir", work.toString()));

    long t0 = System.nanoTime();
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(work.resolve("kafka"), 0)) {
      emit("broker_start", Map.of("ms", ms(t0)));
      long t1 = System.nanoTime();
      try (ServiceHandle service = ServiceHandle.start(spec, broker.bootstrapServers())) {
        emit("service_start", Map.of("ms", ms(t1)));
        run(spec, service, stream, values, rate);
      }
    }
  }

  private static void run(DimensionSpec spec, ServiceHandle service, ChangeStreams.GeneratedStream stream,
      List<byte[]> values, long rate)
      throws Exception {
    VersionsWatcher watcher = new VersionsWatcher(service.kafka(), spec.topics().versions());
    Thread watcherThread = new Thread(watcher, "versions-watcher");
    watcherThread.start();
    DeltaTable table = DeltaTable.open(spec.service().tablePath());
    long versionBefore = table.latest().version();

    Properties p = new Properties();
    p.putAll(service.kafka());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    AtomicReference<Exception> failed = new AtomicReference<>();
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < values.size(); i++) {
        byte[] v = values.get(i);
        if (rate > 0) {
          long due = start + i * 1_000_000_000L / rate;
          long wait = due - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
        }
        producer.send(new ProducerRecord<>(spec.topics().changes(), null, v), (md, e) -> {
          if (e != null) {
            failed.compareAndSet(null, e);
          }
        });
      }
      producer.flush();
    }
    if (failed.get() != null) {
      throw failed.get();
    }
    long produced = System.nanoTime();
    emit("produce", Map.of("records", values.size(), "ms", ms(start), "records_per_s",
        rate(values.size(), produced - start)));

    long streamsDone = -1;
    long tableDone = -1;
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (tableDone < 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not caught up after 30 minutes");
      }
      if (service.compactorFailure() != null) {
        throw new IllegalStateException("compactor failed", service.compactorFailure());
      }
      if (streamsDone < 0 && service.streamsCaughtUp()) {
        streamsDone = System.nanoTime();
      }
      if (streamsDone >= 0 && watcher.atEnd() && covers(table, spec, watcher.lastOffsets())) {
        tableDone = System.nanoTime();
      } else {
        Thread.sleep(streamsDone < 0 ? 100 : 20);
      }
    }
    watcher.stop();
    watcherThread.join();

    emit("end_to_end", ordered(
        "events", values.size(),
        "events_per_s_to_versions_topic", rate(values.size(), streamsDone - start),
        "events_per_s_to_table", rate(values.size(), tableDone - start),
        "ms_produce_start_to_table_visible", (tableDone - start) / 1_000_000,
        "ms_last_ack_to_versions_complete", (streamsDone - produced) / 1_000_000,
        "ms_last_ack_to_table_visible", (tableDone - produced) / 1_000_000));
    long[] lat = watcher.latencies();
    emit("latency_produce_to_versions_topic", ordered(
        "version_records", lat.length,
        "p50_ms", pct(lat, 50), "p90_ms", pct(lat, 90), "p99_ms", pct(lat, 99), "max_ms", pct(lat, 100)));

    List<CommitSummary> commits = table.history().stream()
        .filter(c -> c.version() > versionBefore && c.operation().equals("MERGE")).toList();
    long[] exec = commits.stream().mapToLong(c -> Long.parseLong(c.operationMetrics()
        .getOrDefault("executionTimeMs", "0"))).sorted().toArray();
    long rows = commits.stream().mapToLong(c -> Long.parseLong(c.operationMetrics()
        .getOrDefault("numSourceRows", "0"))).sum();
    emit("table_commits", ordered(
        "commits", commits.size(),
        "mean_ms", exec.length == 0 ? 0 : Arrays.stream(exec).sum() / exec.length,
        "p50_ms", pct(exec, 50), "max_ms", pct(exec, 100),
        "mean_changes_per_commit", commits.isEmpty() ? 0 : rows / commits.size(),
        "checkpoints", countCheckpoints(spec.service().tablePath())));

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    List<Version> actual;
    try (Stream<Version> s = table.latest().scan()) {
      actual = new ArrayList<>(s.toList());
    }
    actual.sort(BusinessKeys.VERSION_ORDER);
    emit("check", ordered("table_rows", actual.size(), "table_equals_reference_fold",
        String.valueOf(actual.equals(expected)), "late_events_spliced", service.lateEventsSpliced(),
        "table_path", spec.service().tablePath().toString()));
  }

  private static long countCheckpoints(Path table) throws Exception {
    try (Stream<Path> s = Files.list(table.resolve("_delta_log"))) {
      return s.filter(f -> f.getFileName().toString().endsWith(".checkpoint.parquet")).count();
    }
  }

  private static boolean covers(DeltaTable table, DimensionSpec spec, Map<Integer, Long> lastOffsets) {
    if (lastOffsets.isEmpty()) {
      return false;
    }
    Map<String, Long> recorded = table.latest().txnVersions();
    for (var e : lastOffsets.entrySet()) {
      Long r = recorded.get(spec.name() + "-versions-" + e.getKey());
      if (r == null || r < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static DimensionSpec spec(Path work, int partitions, long intervalMs) throws Exception {
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        .replaceFirst("(?m)^name: customers", "name: bench")
        + "\nservice:\n  data_dir: " + work.resolve("data") + "\n  table_path: " + work.resolve("table")
        + "\n  partitions: " + partitions + "\n  compaction: {interval: " + intervalMs + "ms}\n  http: {port: 0}\n";
    Path file = work.resolve("bench.yaml");
    Files.writeString(file, yaml);
    return DimensionSpecLoader.load(file);
  }

  /** Reads the versions topic (read_committed) and notes, per record, arrival time minus record timestamp. */
  private static final class VersionsWatcher implements Runnable {
    private final Map<String, Object> kafka;
    private final String topic;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean atEnd = new AtomicBoolean();
    private final Map<Integer, Long> lastOffsets = new HashMap<>();
    private long[] latencies = new long[1 << 16];
    private int count;

    VersionsWatcher(Map<String, Object> kafka, String topic) {
      this.kafka = kafka;
      this.topic = topic;
    }

    @Override
    public void run() {
      Properties p = new Properties();
      p.putAll(kafka);
      p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
      p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
        List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(i -> new TopicPartition(topic, i.partition())).toList();
        c.assign(parts);
        c.seekToBeginning(parts);
        while (running.get()) {
          var records = c.poll(Duration.ofMillis(50));
          long now = System.currentTimeMillis();
          synchronized (this) {
            for (ConsumerRecord<byte[], byte[]> r : records) {
              if (count == latencies.length) {
                latencies = Arrays.copyOf(latencies, count * 2);
              }
              latencies[count++] = now - r.timestamp();
              lastOffsets.merge(r.partition(), r.offset(), Math::max);
            }
          }
          Map<TopicPartition, Long> ends = c.endOffsets(parts);
          atEnd.set(parts.stream().allMatch(tp -> c.position(tp) >= ends.get(tp)));
        }
      }
    }

    boolean atEnd() {
      return atEnd.get();
    }

    synchronized Map<Integer, Long> lastOffsets() {
      return Map.copyOf(lastOffsets);
    }

    synchronized long[] latencies() {
      long[] out = Arrays.copyOf(latencies, count);
      Arrays.sort(out);
      return out;
    }

    void stop() {
      running.set(false);
    }
  }

  private static long pct(long[] sorted, int p) {
    if (sorted.length == 0) {
      return -1;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  private static long ms(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  private static long rate(long n, long nanos) {
    return nanos <= 0 ? 0 : Math.round(n * 1e9 / nanos);
  }

  private static Map<String, Object> ordered(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  private static void emit(String metric, Map<String, ?> fields) {
    String body = fields.entrySet().stream()
        .map(e -> "\"" + e.getKey() + "\": " + (e.getValue() instanceof Number ? e.getValue().toString()
            : "\"" + e.getValue().toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\""))
        .collect(Collectors.joining(", "));
    System.out.printf(Locale.ROOT, "{\"bench\": \"e2e\", \"metric\": \"%s\", \"at\": \"%s\", %s}%n", metric,
        Instant.now(), body);
    System.out.flush();
  }
}
