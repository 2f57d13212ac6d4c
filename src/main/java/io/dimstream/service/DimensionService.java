package io.dimstream.service;

import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.broker.TopicProvisioner;
import io.dimstream.codec.StateBinary;
import io.dimstream.codec.VersionAvro;
import io.dimstream.codec.WireFraming;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.compactor.Compactor;
import io.dimstream.enrich.EnrichmentCounters;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.KeptStateException;
import io.dimstream.enrich.streams.EnrichmentTopics;
import io.dimstream.enrich.streams.EnrichmentTopology;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.StreamsLiveQueries;
import io.dimstream.query.TableLiveQueries;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Snapshot;
import io.dimstream.table.StateMarkers;
import io.dimstream.query.http.DimensionEndpoint;
import io.dimstream.query.http.QueryServer;
import io.dimstream.query.http.ServiceMetrics;
import io.dimstream.change.ChangeDecoder;
import io.dimstream.registry.HttpSchemaRegistry;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputFormat;
import io.dimstream.spec.SizePolicy;
import io.dimstream.spec.StateLayouts;
import io.dimstream.topology.DimensionTopology;
import io.dimstream.topology.EventStoreRecords;
import io.dimstream.topology.LiveStores;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.CloseOptions;
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
 *
 * <p>Hosted with other dimensions in one process ({@link DimensionHost}), it uses the host's Kafka and registers with
 * the host's query endpoint instead of starting either.
 */
public final class DimensionService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DimensionService.class);

  private final DimensionSpec spec;
  private final Clock clock;
  private EmbeddedKafkaBroker broker;
  private volatile KafkaStreams streams;
  /** Reads change records; set before the topology starts, closed before it stops so no record waits forever. */
  private volatile ChangeDecoder decoder;
  /** The id of the version records' schema in the registry when they are framed in the Confluent wire format. */
  private OptionalInt versionsSchemaId = OptionalInt.empty();
  private CompactorRunner compactor;
  private DeltaTable table;
  private Map<String, Object> kafka;
  private QueryServer queryServer;
  private StreamsLiveQueries liveQueries;
  private SizePolicy sizes;
  private final StreamThreadWatch threads = new StreamThreadWatch(Clock.systemUTC());
  private final TakeoverStatus takeoverStatus = new TakeoverStatus(Clock.systemUTC());
  private final CountDownLatch failed = new CountDownLatch(1);
  private final AtomicBoolean closed = new AtomicBoolean();
  private List<EnrichmentSpec> enrichments = List.of();
  private volatile Map<String, EnrichmentCounters> enrichmentCounters = Map.of();
  /** The host's Kafka and endpoint when several dimensions share a process; null for a dimension of its own. */
  private Hosted hosted;

  /**
   * What a {@link DimensionHost} shares with the dimensions it starts.
   *
   * @param bootstrapServers the Kafka every dimension of the process uses
   * @param embeddedBroker   whether that Kafka is the host's embedded single broker (no standby replicas then)
   * @param server           the query endpoint every dimension registers with
   */
  public record Hosted(String bootstrapServers, boolean embeddedBroker, QueryServer server) {}

  private DimensionService(DimensionSpec spec, Clock clock) {
    this.spec = spec;
    this.clock = clock;
  }

  /** Starts everything with the system clock; on failure closes what was started and rethrows. */
  public static DimensionService start(DimensionSpec spec, String bootstrapOverride) {
    return start(spec, bootstrapOverride, Clock.systemUTC());
  }

  /**
   * Starts everything; on failure closes what was started and rethrows.
   *
   * @param bootstrapOverride Kafka to use instead of the spec's; null for the spec's, or an embedded broker if
   *     the spec names none
   * @param clock             the compactor's clock (batch intervals, lease ages)
   */
  public static DimensionService start(DimensionSpec spec, String bootstrapOverride, Clock clock) {
    return start(spec, List.of(), bootstrapOverride, clock);
  }

  /**
   * Starts everything, with {@code enrichments} of this dimension in the same Kafka Streams application; on failure
   * closes what was started and rethrows.
   */
  public static DimensionService start(DimensionSpec spec, List<EnrichmentSpec> enrichments,
      String bootstrapOverride, Clock clock) {
    return start(spec, enrichments, bootstrapOverride, null, clock);
  }

  /**
   * Starts a dimension hosted with others in one process: on the host's Kafka, served by the host's endpoint; on
   * failure closes what was started (the endpoint stays) and rethrows.
   */
  public static DimensionService startHosted(DimensionSpec spec, Hosted hosted, Clock clock) {
    return startHosted(spec, List.of(), hosted, clock);
  }

  /** As {@link #startHosted(DimensionSpec, Hosted, Clock)}, with {@code enrichments} of this dimension. */
  public static DimensionService startHosted(DimensionSpec spec, List<EnrichmentSpec> enrichments, Hosted hosted,
      Clock clock) {
    return start(spec, enrichments, hosted.bootstrapServers(), hosted, clock);
  }

  private static void createDirectories(Path dir) {
    try {
      java.nio.file.Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new ServiceException("Cannot create the state directory " + dir + ": " + e + ". Fix: make "
          + "service.data_dir a directory this user can write.", e);
    }
  }

  private static DimensionService start(DimensionSpec spec, List<EnrichmentSpec> enrichments,
      String bootstrapOverride, Hosted hosted, Clock clock) {
    DimensionService s = new DimensionService(spec, clock);
    s.hosted = hosted;
    s.enrichments = List.copyOf(enrichments);
    try {
      s.startAll(bootstrapOverride);
      return s;
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
  }

  private void startAll(String bootstrapOverride) {
    // what an operator checks first when the service misbehaves; secrets are shown as *** (ServiceSettings.toString)
    LOG.info("Settings of {}: {}", spec.name(), spec.service());
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
    // The table is read from its store while the topics are checked on the brokers: both are round trips to other
    // services, and a restarted instance then waits for the slower of the two instead of their sum.
    FutureTask<DeltaTable> opening = new FutureTask<>(() -> {
      // before the table is evolved to this spec: a takeover must use the horizon the table was written with
      checkHorizonForTakeover();
      return Compactor.openTable(spec);
    });
    Thread opener = new Thread(opening, "open-table-" + spec.name());
    opener.setDaemon(true);
    opener.start();
    // brokers that are down at start are waited for, with a log line per attempt, rather than ending the process
    KafkaWait kafkaWait = new KafkaWait(kafka, broker != null ? java.time.Duration.ZERO : spec.service().kafkaWait());
    TopicProvisioner.Provisioned topics = kafkaWait.run("create the topics",
        () -> TopicProvisioner.provision(kafka, spec));
    sizes = topics.sizes();

    table = opened(opening);
    // before the topology starts: its stores may hold events written under the specs the table was evolved from
    StateLayouts layouts = stateLayouts(table);
    VersionRecordCodec versions = VersionRecordCodec.forSpec(spec);
    // version records in the wire format name the schema registered for them; the compactor reads past the header
    versionsSchemaId = WireFraming.versionsFramed(spec) ? OptionalInt.of(registerVersionSchema(versions))
        : OptionalInt.empty();
    compactor = new CompactorRunner(spec, table, WireFraming.versionsFramed(spec)
        ? (k, v) -> versions.decodeChange(k, WireFraming.unframe(v)) : versions::decodeChange, kafka, owner(), clock, sizes,
        failed::countDown);
    startQueryServer();
    // before the takeover: the table must hold what the versions topic holds before it is read
    compactor.start();

    StreamsBuilder builder = new StreamsBuilder();
    decoder = ChangeDecoder.forSpec(spec);
    DimensionTopology.build(builder, spec, decoder, DimensionTopology.DEFAULT_PRUNE_INTERVAL, sizes, versionsSchemaId);
    if (!enrichments.isEmpty()) {
      int versionsPartitions = EnrichmentTopics.provision(kafka, spec, enrichments);
      enrichmentCounters = EnrichmentTopology.build(builder, spec, enrichments, versionsPartitions,
          EnrichmentTopology.DEFAULT_TICK, registerEnrichedSchemas());
      enrichments.forEach(e -> LOG.info("Enrichment {}: {} joined with {} as of {} -> {}", e.name(),
          e.facts().topic(), spec.name(), e.facts().time(), e.outputTopic()));
    }
    Map<String, String> streamsKafka = new HashMap<>();
    kafka.forEach((k, v) -> streamsKafka.put(k, String.valueOf(v)));
    Path stateDir = dataDir.resolve("streams");
    // made here, race-free: Kafka Streams' own creation of the base directory fails when another dimension of the
    // process creates it at the same moment
    createDirectories(stateDir);
    Properties props = DimensionTopology.config(spec, sizes, streamsKafka, stateDir);
    // read once at start: while the service runs, a partition added to a keyed changes topic moves keys, and their
    // records are rejected as wrong-partition instead of being applied by a task that lacks their history
    props.put(DimensionTopology.CHANGES_PARTITIONS_CONFIG, Integer.toString(topics.changesPartitions()));
    props.put(DimensionTopology.STATE_LAYOUTS_CONFIG, layouts.toJson());
    props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, spec.service().httpHost() + ":" + queryServer.port());
    CommitInterval.applyDefault(props, spec);
    ProducerLinger.applyDefault(props);
    StandbyReplicas.applyDefault(props, broker != null || hosted != null && hosted.embeddedBroker());
    TaskIdle.applyDefault(props, !enrichments.isEmpty());
    // Static membership: a restart after a crash takes back its partitions at once instead of waiting for the
    // dead member's session to expire (45 s by default) before Streams resumes.
    props.putIfAbsent(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
        "dimstream-" + spec.name() + "-" + Integer.toHexString(owner().hashCode()));
    String applicationId = props.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
    kafkaWait.run("read the state's partitions", () -> {
      StatePartitions.check(kafka, spec, applicationId, topics.changesPartitions());
      return null;
    });
    takeOver(layouts, props, applicationId, topics.changesPartitions());
    streams = new KafkaStreams(builder.build(), props);
    streams.setUncaughtExceptionHandler(e -> {
      threads.failed(e);
      if (StatePartitions.isPartitionMismatch(e)) {
        // partitions were added to the changes topic while running: a new thread would fail the same way
        LOG.error("Stopping the topology of {}: {}", spec.name(), StatePartitions.explain(kafka, spec,
            applicationId, e));
        return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
      }
      KeptStateException kept = keptStateFailure(e);
      if (kept != null) {
        // an enrichment spec its kept facts cannot follow: a new thread would restore them and fail the same way
        LOG.error("Stopping the topology of {}: {}", spec.name(), kept.getMessage());
        return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
      }
      LOG.error("Stream thread of {} failed; replacing it: {}", spec.name(), e.toString(), e);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
    });
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.ERROR) {
        failed.countDown();
      }
    });
    LiveStores live = new LiveStores(streams, spec, layouts);
    streams.start();
    liveQueries.attach(live, new HostInfo(spec.service().httpHost(), queryServer.port()));

    LOG.info("dimstream {} running: {} -> {} -> table {}", spec.name(), spec.topics().changes(),
        spec.topics().versions(), spec.service().tablePath());
    if (versions instanceof VersionAvro avro) {
      LOG.info("Version records on {} are Avro binary ({}) with the schema {}", spec.topics().versions(),
          versionsSchemaId.isPresent() ? "the Confluent wire format, schema id " + versionsSchemaId.getAsInt()
              : "no framing", avro.schema());
    }
  }

  /** Makes the topology's state hold the table's history before the topology starts ({@link TableTakeover}). */
  private void takeOver(StateLayouts layouts, Properties props, String applicationId, int partitions) {
    // as Kafka Streams would create it: its topic.* settings (max.message.bytes among them), compacted
    Map<String, String> changelogConfig = new HashMap<>();
    props.stringPropertyNames().stream().filter(k -> k.startsWith(StreamsConfig.TOPIC_PREFIX))
        .forEach(k -> changelogConfig.put(k.substring(StreamsConfig.TOPIC_PREFIX.length()), props.getProperty(k)));
    changelogConfig.put(TopicConfig.CLEANUP_POLICY_CONFIG, "compact");
    short replication = Short.parseShort(props.getProperty(StreamsConfig.REPLICATION_FACTOR_CONFIG, "-1"));
    Path stateDir = Path.of(props.getProperty(StreamsConfig.STATE_DIR_CONFIG)).resolve(applicationId);
    TableTakeover takeover = new TableTakeover(spec, table, layouts, kafka, applicationId, partitions, replication,
        changelogConfig, stateDir, compactor::current, takeoverStatus, owner(), versionsSchemaId);
    try {
      takeover.ensure();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ServiceErrors.takeoverFailed(spec, EventStoreRecords.changelogTopic(applicationId), "interrupted");
    }
  }

  /** The enrichment's refusal of its kept facts that ended a stream thread, or null. */
  private static KeptStateException keptStateFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof KeptStateException k) {
        return k;
      }
    }
    return null;
  }

  /** The table {@code opening} opened, or what it threw. */
  private static DeltaTable opened(FutureTask<DeltaTable> opening) {
    try {
      return opening.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while opening the table", e);
    }
  }

  /**
   * The attribute layouts of the specs the table was evolved from, checked against this spec so that a bad table
   * property stops the start rather than every stream thread.
   */
  private StateLayouts stateLayouts(DeltaTable table) {
    try {
      StateLayouts layouts = StateLayouts.parse(table.properties().get(StateLayouts.PROPERTY));
      new StateBinary(spec, layouts);
      return layouts;
    } catch (IllegalArgumentException e) {
      throw ServiceErrors.unreadableStateLayouts(table.location(), e.getMessage());
    }
  }

  /**
   * Refuses to start on a table that holds data no state was built from (it is about to be taken over) under another
   * lateness horizon than the table was written with: the horizon decides which late events its writer accepted.
   * Checked before the table is evolved to this spec, which records the spec's horizon in it.
   */
  private void checkHorizonForTakeover() throws IOException {
    if (!DeltaTable.exists(spec.service().tableStore())) {
      return;
    }
    Snapshot s = DeltaTable.open(spec.service().tableStore()).latest();
    boolean namesState = s.txnVersions().keySet().stream()
        .anyMatch(app -> app.startsWith(StateMarkers.statePrefix(spec.name())));
    long stored = s.spec().latenessHorizon();
    if (!namesState && s.fileCount() > 0 && stored != spec.latenessHorizon()) {
      throw ServiceErrors.lateStateSpec(spec, spec.service().tablePath(), TableTakeover.horizonText(spec, stored),
          TableTakeover.horizonText(spec, spec.latenessHorizon()));
    }
  }

  /**
   * Registers the Avro schema of the version records under {@code <versions topic>-value} (the topic-name strategy),
   * a new version of the subject when the spec gained a column; the registry answers with the existing id otherwise.
   */
  private int registerVersionSchema(VersionRecordCodec versions) {
    try (HttpSchemaRegistry registry = new HttpSchemaRegistry(spec.schemaRegistry(), clock)) {
      int id = registry.registerValue(spec.topics().versions(), ((VersionAvro) versions).schema().toString());
      LOG.info("Version records on {} are in the Confluent wire format with schema id {} ({}-value)",
          spec.topics().versions(), id, spec.topics().versions());
      return id;
    }
  }

  /**
   * Registers the Avro schema of each enrichment with {@code output.format: avro} under {@code <output topic>-value},
   * as {@link #registerVersionSchema} does for the versions topic: a new version when the spec gained a column.
   *
   * @return the schema id of each such enrichment, by name
   */
  private Map<String, Integer> registerEnrichedSchemas() {
    Map<String, Integer> ids = new HashMap<>();
    for (EnrichmentSpec e : enrichments) {
      if (e.outputFormat() != OutputFormat.AVRO) {
        continue;
      }
      try (HttpSchemaRegistry registry = new HttpSchemaRegistry(spec.schemaRegistry(), clock)) {
        int id = registry.registerValue(e.outputTopic(), e.enrichedAvroSchema().toString());
        LOG.info("Enriched records of {} on {} are in the Confluent wire format with schema id {} ({}-value)",
            e.name(), e.outputTopic(), id, e.outputTopic());
        ids.put(e.name(), id);
      }
    }
    return ids;
  }

  /** Binds the query endpoint first: Kafka Streams must know its real port as {@code application.server}. */
  private void startQueryServer() {
    DeltaVersionTable versions = new DeltaVersionTable(table);
    liveQueries = new StreamsLiveQueries(spec, new TableLiveQueries(versions));
    if (hosted != null) {
      queryServer = hosted.server();
      queryServer.register(new DimensionEndpoint(liveQueries, versions::commits, metrics()), health());
      return;
    }
    queryServer = QueryServer.builder()
        .bind(spec.service().httpHost(), spec.service().httpPort())
        .security(spec.service().httpSecurity())
        .dimension(new DimensionEndpoint(liveQueries, versions::commits, metrics()))
        .health(health())
        .build()
        .start();
    LOG.info("Query endpoint on {}://{}:{}/ (timeline page), /dimensions/{}/keys/<key>", queryServer.scheme(),
        spec.service().httpHost(), queryServer.port(), spec.name());
  }

  /** This dimension's health: its topology, compactor, stream threads, takeover and schema registry. */
  public java.util.function.Supplier<io.dimstream.query.http.Health> health() {
    return new ServiceHealth(() -> streams, compactor::current, threads, takeoverStatus, () -> {
      ChangeDecoder d = decoder;
      return d == null ? java.util.Optional.empty() : d.outage();
    });
  }

  /** The port the query endpoint listens on (the configured one, or the free one picked for port 0). */
  public int httpPort() {
    return queryServer.port();
  }

  /** The counters of {@code /metrics}: the topology's, the compactor's lag and the table's version. */
  public ServiceMetrics metrics() {
    return new ServiceMetricsReader(() -> streams, compactor::current, table, threads, () -> {
      Map<String, Map<String, Long>> out = new java.util.LinkedHashMap<>();
      enrichmentCounters.forEach((name, c) -> out.put(name, c.snapshot()));
      return out;
    });
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

  /** The counters of each enrichment run by this instance, by enrichment name; empty when it runs none. */
  public Map<String, EnrichmentCounters> enrichmentCounters() {
    return enrichmentCounters;
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

  /** The compactor of the current attempt (a new one after each stand-by retry); null before the first. */
  public Compactor compactor() {
    return compactor.current();
  }

  /** The size policy settled at start (see {@link TopicProvisioner#provision}). */
  public SizePolicy sizes() {
    return sizes;
  }

  /** The dimension's table, as its compactor writes it. */
  public DeltaTable table() {
    return table;
  }

  /** Blocks until a part of the service fails (Streams in ERROR, or the compactor stopped with an error). */
  public void awaitFailure() throws InterruptedException {
    failed.await();
  }

  /** Stops in reverse order: streams flush and commit, the compactor commits what it read, the broker last. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (hosted != null) {
      hosted.server().unregister(spec.name(), null); // the host reports why, when it stopped for a failure
    } else if (queryServer != null) {
      queryServer.close();
    }
    if (decoder != null) {
      // a stream thread waiting for an unreachable schema registry would hold up the close for its whole timeout
      decoder.close();
    }
    if (streams != null) {
      // A static member that stays in the group gets its former assignment back at the next start, without a
      // rebalance: after a topology change (an enrichment added or renamed) that assignment lacks the new repartition
      // topic's partitions, and Kafka Streams fails the stream thread when a later rebalance adds them to the
      // restoring task ("Topic ... is unknown to the topology"). Leaving on a clean stop keeps the quick take-back for
      // a crash, which does not run this.
      streams.close(CloseOptions.timeout(Duration.ofSeconds(30))
          .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
    }
    if (compactor != null) {
      compactor.stop(Duration.ofSeconds(60));
    }
    if (table != null) {
      table.closeLocalState(); // the position index on disk, for the next start
    }
    if (broker != null) {
      broker.close();
    }
    LOG.info("dimstream {} stopped", spec.name());
  }
}
