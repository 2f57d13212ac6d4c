package io.dimstream.service;

import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.broker.TopicProvisioner;
import io.dimstream.codec.VersionAvro;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.compactor.Compactor;
import io.dimstream.compactor.LeaseHeldException;
import io.dimstream.config.DimensionSpec;
import io.dimstream.config.SizePolicy;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.StreamsLiveQueries;
import io.dimstream.query.TableLiveQueries;
import io.dimstream.query.http.DimensionEndpoint;
import io.dimstream.query.http.Health;
import io.dimstream.query.http.QueryServer;
import io.dimstream.query.http.ServiceMetrics;
import io.dimstream.topology.DimensionTopology;
import io.dimstream.topology.LiveStores;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running dimension: the embedded broker (when no Kafka is configured), the topics, the Kafka Streams
 * topology, the compactor and the query endpoint, started in that order and closed in the reverse order.
 * Wiring only: every part lives in its own package.
 */
public final class DimensionService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DimensionService.class);

  private final DimensionSpec spec;
  private EmbeddedKafkaBroker broker;
  private KafkaStreams streams;
  private volatile Compactor compactor;
  private Thread compactorThread;
  private TableSinkAdapter table;
  private Map<String, Object> kafka;
  private QueryServer queryServer;
  private StreamsLiveQueries liveQueries;
  private SizePolicy sizes;
  private final StreamThreadWatch threads = new StreamThreadWatch(Clock.systemUTC());
  private final java.util.concurrent.CountDownLatch failed = new java.util.concurrent.CountDownLatch(1);
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  private DimensionService(DimensionSpec spec) {
    this.spec = spec;
  }

  /** Starts everything; on failure closes what was started and rethrows. */
  public static DimensionService start(DimensionSpec spec, String bootstrapOverride) {
    DimensionService s = new DimensionService(spec);
    try {
      s.startAll(bootstrapOverride);
      return s;
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
  }

  private void startAll(String bootstrapOverride) {
    Path dataDir = spec.service().dataDir();
    kafka = new HashMap<>(spec.service().kafka());
    if (bootstrapOverride != null) {
      kafka.put("bootstrap.servers", bootstrapOverride);
    }
    if (kafka.get("bootstrap.servers") == null) {
      long t0 = System.nanoTime();
      broker = EmbeddedKafkaBroker.start(dataDir.resolve("kafka"), 0);
      kafka.put("bootstrap.servers", broker.bootstrapServers());
      writeBootstrapFile(broker.bootstrapServers());
      LOG.info("Embedded Kafka broker up at {} in {} ms (data in {})", broker.bootstrapServers(),
          (System.nanoTime() - t0) / 1_000_000, dataDir.resolve("kafka").toAbsolutePath());
    }
    sizes = TopicProvisioner.provision(kafka, spec).sizes();

    table = TableSinkAdapter.openOrCreate(spec);
    startQueryServer();

    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, spec, sizes);
    Map<String, String> streamsKafka = new HashMap<>();
    kafka.forEach((k, v) -> streamsKafka.put(k, String.valueOf(v)));
    Properties props = DimensionTopology.config(spec, sizes, streamsKafka,
        dataDir.resolve("streams"));
    props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, spec.service().httpHost() + ":" + queryServer.port());
    props.putIfAbsent(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
    // Static membership: a restart after a crash takes back its partitions at once instead of waiting for the
    // dead member's session to expire (45 s by default) before Streams resumes.
    props.putIfAbsent(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
        "dimstream-" + spec.name() + "-" + Integer.toHexString(owner().hashCode()));
    streams = new KafkaStreams(builder.build(), props);
    streams.setUncaughtExceptionHandler(e -> {
      threads.failed(e);
      LOG.error("Stream thread of {} failed; replacing it: {}", spec.name(), e.toString(), e);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
    });
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.ERROR) {
        failed.countDown();
      }
    });
    streams.start();
    liveQueries.attach(new LiveStores(streams, spec), new HostInfo(spec.service().httpHost(), queryServer.port()));

    VersionRecordCodec versions = VersionRecordCodec.forSpec(spec);
    compactorThread = new Thread(() -> runCompactor(versions), "compactor-" + spec.name());
    compactorThread.setDaemon(true);
    compactorThread.start();
    LOG.info("dimstream {} running: {} -> {} -> table {}", spec.name(), spec.topics().changes(),
        spec.topics().versions(), spec.service().tablePath().toAbsolutePath());
    if (versions instanceof VersionAvro avro) {
      LOG.info("Version records on {} are Avro binary (no framing) with the schema {}", spec.topics().versions(),
          avro.schema());
    }
  }

  /**
   * Runs the compactor; while another instance holds the table's lease this one stands by and retries, so a
   * second instance of the service takes over when the first stops. Any other compactor error fails the service.
   */
  private void runCompactor(VersionRecordCodec versions) {
    boolean toldStandby = false;
    while (!closed.get()) {
      Compactor c = new Compactor(spec, spec.service().tablePath(), table, versions::decodeChange, kafka, owner(),
          Clock.systemUTC(), sizes);
      compactor = c;
      try {
        c.run();
        return;
      } catch (LeaseHeldException e) {
        if (!toldStandby) {
          LOG.warn("Compactor standing by: {}", e.getMessage());
          toldStandby = true;
        }
        sleepQuietly(5_000);
      } catch (RuntimeException e) {
        failed.countDown();
        return;
      }
    }
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Binds the query endpoint first: Kafka Streams must know its real port as {@code application.server}. */
  private void startQueryServer() {
    DeltaVersionTable versions = new DeltaVersionTable(table.table());
    liveQueries = new StreamsLiveQueries(spec, new TableLiveQueries(versions));
    queryServer = QueryServer.builder()
        .bind(spec.service().httpHost(), spec.service().httpPort())
        .dimension(new DimensionEndpoint(liveQueries, versions::commits, new Metrics()))
        .health(this::health)
        .build()
        .start();
    LOG.info("Query endpoint on http://{}:{}/ (timeline page), /dimensions/{}/keys/<key>", spec.service().httpHost(),
        queryServer.port(), spec.name());
  }

  private Health health() {
    KafkaStreams.State state = streams == null ? null : streams.state();
    Compactor c = compactor;
    Throwable f = c == null ? null : c.failure();
    String compactorState = c == null ? "starting" : f == null ? "running"
        : f instanceof LeaseHeldException ? "standby (another instance writes the table)" : "failed: " + f.getMessage();
    java.util.Optional<String> threadProblem = threads.problem();
    boolean up = state != null && state.isRunningOrRebalancing() && threadProblem.isEmpty()
        && (f == null || f instanceof LeaseHeldException);
    Map<String, String> details = new java.util.LinkedHashMap<>();
    details.put("streams", String.valueOf(state));
    threadProblem.ifPresent(p -> details.put("stream_threads", p));
    details.put("compactor", compactorState);
    return new Health(up, details);
  }

  /** The port the query endpoint listens on (the configured one, or the free one picked for port 0). */
  public int httpPort() {
    return queryServer.port();
  }

  /** The counters behind {@code /metrics}, read from the topology's Streams metrics and the compactor. */
  private final class Metrics implements ServiceMetrics {
    @Override
    public long eventsIn() {
      // a skipped Debezium tombstone was read too: it is neither an event nor a DLQ record
      return (long) (metricTotal("events-in-total") + metricTotal("dlq-records-total")
          + metricTotal("tombstones-skipped-total"));
    }

    @Override
    public long versionsOut() {
      return (long) metricTotal("versions-out-total");
    }

    @Override
    public long lateEventsSpliced() {
      return DimensionService.this.lateEventsSpliced();
    }

    @Override
    public long dlqRecords() {
      Compactor c = compactor;
      return (long) metricTotal("dlq-records-total") + (c == null ? 0 : c.deadLettered());
    }

    @Override
    public long compactionLag() {
      return compactor == null ? 0 : Math.max(0, compactor.lag());
    }

    @Override
    public long lastCommitVersion() {
      return table == null ? -1 : table.latestVersion();
    }

    @Override
    public long streamThreadFailures() {
      return threads.failures();
    }

    @Override
    public long compactorFailed() {
      Compactor c = compactor;
      Throwable f = c == null ? null : c.failure();
      return f == null || f instanceof LeaseHeldException ? 0 : 1;
    }
  }

  /** A restarted instance on the same host and data directory owns the same table lease. */
  private String owner() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "localhost";
    }
    return host + ":" + spec.service().dataDir().toAbsolutePath().normalize();
  }

  private void writeBootstrapFile(String servers) {
    Path file = KafkaClients.bootstrapFile(spec);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, servers);
    } catch (IOException e) {
      LOG.warn("Could not write {}: {}; `dimstream produce` will need --bootstrap-servers", file, e.toString());
    }
  }

  public DimensionSpec spec() {
    return spec;
  }

  public Map<String, Object> kafka() {
    return Map.copyOf(kafka);
  }

  public KafkaStreams streams() {
    return streams;
  }

  public Compactor compactor() {
    return compactor;
  }

  /** The size policy settled at start (see {@link TopicProvisioner#provision}). */
  public SizePolicy sizes() {
    return sizes;
  }

  public TableSinkAdapter table() {
    return table;
  }

  /** Blocks until a part of the service fails (Streams in ERROR, or the compactor stopped with an error). */
  public void awaitFailure() throws InterruptedException {
    failed.await();
  }

  /** The number of late events spliced into history so far, from the topology's metrics. */
  public long lateEventsSpliced() {
    return (long) metricTotal("late-events-spliced-total");
  }

  /** Sums a dimstream metric of the topology over every stream thread and task of this instance. */
  public double metricTotal(String name) {
    if (streams == null) {
      return 0;
    }
    double sum = 0;
    for (var e : streams.metrics().entrySet()) {
      if (e.getKey().name().equals(name) && e.getKey().group().equals("dimstream")
          && e.getValue().metricValue() instanceof Number n) {
        sum += n.doubleValue();
      }
    }
    return sum;
  }

  /** Stops in reverse order: streams flush and commit, the compactor commits what it read, the broker last. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (queryServer != null) {
      queryServer.close();
    }
    if (streams != null) {
      streams.close(Duration.ofSeconds(30));
    }
    if (compactor != null) {
      compactor.stop(Duration.ofSeconds(60));
    }
    if (broker != null) {
      broker.close();
    }
    LOG.info("dimstream {} stopped", spec.name());
  }
}
