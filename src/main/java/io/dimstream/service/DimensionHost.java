package io.dimstream.service;

import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.query.http.Health;
import io.dimstream.query.http.QueryServer;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.Secrets;
import io.dimstream.spec.ServiceSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several dimensions in one process: one Kafka (the embedded broker when the specs name none), one query endpoint,
 * and per dimension its own topics, Kafka Streams application, compactor and table ({@link DimensionService}).
 *
 * <p>The service-wide settings ({@code data_dir}, {@code kafka}, {@code http}, {@code kafka_wait}) must be the same in
 * every spec; {@link #checkShared} refuses a difference and says how to fix it. A dimension that cannot start, or
 * fails later, stops alone: its reason is on {@code /health} (under {@code by_dimension}) and in the log, and the
 * others keep running. The process ends with a failure only when no dimension is left running.
 */
public final class DimensionHost implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DimensionHost.class);
  /** How many dimensions start at once. */
  static final int PARALLEL_STARTS = 4;

  /** The dimensions the process was last given: at start, then by each {@link #reload}. */
  private volatile List<DimensionSpec> specs;
  /** The enrichments each dimension runs in its own application, by dimension name. */
  private volatile Map<String, List<EnrichmentSpec>> enrichments;
  private final Clock clock;
  private final Map<String, DimensionService> running = new ConcurrentHashMap<>();
  private final Map<String, String> failures = new ConcurrentHashMap<>();
  /** The thread waiting for each running dimension to fail, interrupted when the dimension is stopped on purpose. */
  private final Map<String, Thread> watchers = new ConcurrentHashMap<>();
  private final CountDownLatch noneLeft = new CountDownLatch(1);
  private EmbeddedKafkaBroker broker;
  private QueryServer server;
  private DimensionService.Hosted hosted;
  private volatile boolean closing;

  private DimensionHost(List<DimensionSpec> specs, Map<String, List<EnrichmentSpec>> enrichments, Clock clock) {
    this.specs = List.copyOf(specs);
    this.enrichments = Map.copyOf(enrichments);
    this.clock = clock;
  }

  /**
   * Starts every dimension of {@code specs} in this process.
   *
   * @param bootstrapOverride Kafka to use instead of the specs'; null for theirs, or an embedded broker if none
   * @throws ServiceException when the specs disagree on a service-wide setting or share a name, or when the endpoint
   *     or the broker cannot start (a dimension that cannot start does not fail the host)
   */
  public static DimensionHost start(List<DimensionSpec> specs, String bootstrapOverride, Clock clock) {
    return start(specs, Map.of(), bootstrapOverride, clock);
  }

  /**
   * As {@link #start(List, String, Clock)}, each dimension with the enrichments {@code enrichments} names for it (in its
   * own Kafka Streams application, as a dimension of its own runs them).
   *
   * @throws ServiceException also when an enrichment names a dimension that is not among {@code specs}
   */
  public static DimensionHost start(List<DimensionSpec> specs, Map<String, List<EnrichmentSpec>> enrichments,
      String bootstrapOverride, Clock clock) {
    checkShared(specs);
    checkEnriched(specs, enrichments);
    DimensionHost host = new DimensionHost(specs, enrichments, clock);
    try {
      host.startAll(bootstrapOverride);
      return host;
    } catch (RuntimeException e) {
      host.close();
      throw e;
    }
  }

  /**
   * Refuses specs that share a name, or differ in a setting the process has once: the data directory, the Kafka
   * client properties, the query endpoint (host, port, TLS and authentication), how long to wait for Kafka, or the
   * state stores' memory budget.
   */
  public static void checkShared(List<DimensionSpec> specs) {
    if (specs.isEmpty()) {
      throw new ServiceException("No dimension to run. Fix: give --config a directory that holds dimension specs"
          + " (*.yaml), or spec files.");
    }
    Set<String> names = new HashSet<>();
    for (DimensionSpec s : specs) {
      if (!names.add(s.name())) {
        throw new ServiceException("Two specs name the dimension '" + s.name() + "'. Fix: give each dimension its"
            + " own name (the spec's name:), as topics, state and table are named after it.");
      }
    }
    DimensionSpec first = specs.get(0);
    for (DimensionSpec s : specs.subList(1, specs.size())) {
      checkSameService(first, s);
    }
  }

  /** Refuses {@code b} when it sets a service-wide setting otherwise than {@code a}. */
  private static void checkSameService(DimensionSpec a, DimensionSpec b) {
    differs(a, b, "data_dir", ServiceSettings::dataDir);
    differs(a, b, "kafka", ServiceSettings::kafka);
    differs(a, b, "http.host", ServiceSettings::httpHost);
    differs(a, b, "http.port", ServiceSettings::httpPort);
    differs(a, b, "http (TLS and authentication)", ServiceSettings::httpSecurity);
    differs(a, b, "kafka_wait", ServiceSettings::kafkaWait);
    differs(a, b, "state_memory", ServiceSettings::stateMemory);
  }

  /** Refuses an enrichment of a dimension the process does not run, and two enrichments of one name. */
  static void checkEnriched(List<DimensionSpec> specs, Map<String, List<EnrichmentSpec>> enrichments) {
    Set<String> hosted = new HashSet<>();
    specs.forEach(s -> hosted.add(s.name()));
    Set<String> names = new HashSet<>();
    enrichments.forEach((dimension, list) -> {
      if (!hosted.contains(dimension)) {
        throw new ServiceException("The enrichment '" + list.get(0).name() + "' joins facts with the dimension '"
            + dimension + "', which this process does not run (it runs " + hosted.stream().sorted().toList()
            + "). Fix: add that dimension's spec to --config, or point the enrichment's dimension: at one of them.");
      }
      for (EnrichmentSpec e : list) {
        if (!names.add(e.name())) {
          throw new ServiceException("Two enrichments are named '" + e.name() + "'. Fix: give each its own name: (its"
              + " topics and state are named after it).");
        }
      }
    });
  }

  private static void differs(DimensionSpec a, DimensionSpec b, String key, Function<ServiceSettings, Object> get) {
    Object va = get.apply(a.service());
    Object vb = get.apply(b.service());
    if (!Objects.equals(va, vb)) {
      throw new ServiceException("The dimensions '" + a.name() + "' and '" + b.name() + "' run in one process but"
          + " set service." + key + " differently (" + shown(va) + " and " + shown(vb) + "). Fix: set service." + key + " the same in every spec of the"
          + " directory (or leave it out of all of them), or run the dimensions as separate processes.");
    }
  }

  /** A setting as the refusal shows it: Kafka client properties with their secrets as ***. */
  @SuppressWarnings("unchecked")
  private static String shown(Object value) {
    return value instanceof Map<?, ?> m ? Secrets.redacted((Map<String, String>) m).toString() : String.valueOf(value);
  }

  private void startAll(String bootstrapOverride) {
    ServiceSettings shared = specs.get(0).service();
    String bootstrap = bootstrapOverride != null ? bootstrapOverride : shared.bootstrapServers();
    boolean embedded = false;
    if (bootstrap == null) {
      long t0 = System.nanoTime();
      broker = EmbeddedKafkaBroker.start(shared.dataDir().resolve("kafka"), 0);
      bootstrap = broker.bootstrapServers();
      embedded = true;
      writeBootstrapFile(shared.dataDir(), bootstrap);
      LOG.info("Embedded Kafka broker up at {} in {} ms for {} dimensions", bootstrap,
          (System.nanoTime() - t0) / 1_000_000, specs.size());
    }
    server = QueryServer.builder()
        .bind(shared.httpHost(), shared.httpPort())
        .security(shared.httpSecurity())
        .build()
        .start();
    for (DimensionSpec spec : specs) {
      server.reportHealth(spec.name(), () -> new Health(false, Health.STARTING, Map.of()));
    }
    LOG.info("Query endpoint on {}://{}:{}/ for {} dimensions", server.scheme(), shared.httpHost(), server.port(),
        specs.size());
    hosted = new DimensionService.Hosted(bootstrap, embedded, server);
    long t0 = System.nanoTime();
    // A start mostly waits on Kafka and the table's store (topics, the group, the table's log), so a few start at once.
    ExecutorService starters = Executors.newFixedThreadPool(Math.min(PARALLEL_STARTS, specs.size()), r -> {
      Thread t = new Thread(r, "dimstream-start");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> started = new ArrayList<>();
      for (DimensionSpec spec : specs) {
        started.add(starters.submit(() -> startOne(spec)));
      }
      for (Future<?> f : started) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServiceException("Interrupted while starting the dimensions", e);
    } catch (ExecutionException e) {
      throw new ServiceException("Could not start the dimensions: " + e.getCause(), e.getCause());
    } finally {
      starters.shutdownNow();
    }
    LOG.info("Starting the {} dimensions took {} ms, up to {} at once", specs.size(),
        (System.nanoTime() - t0) / 1_000_000, Math.min(PARALLEL_STARTS, specs.size()));
    LOG.info("dimstream running {} of {} dimensions: {}", running.size(), specs.size(), running.keySet().stream()
        .sorted().toList());
  }

  /** Starts one dimension; one that cannot start is reported and left out, the others go on. */
  private void startOne(DimensionSpec spec) {
    if (closing) {
      return;
    }
    try {
      DimensionService s = DimensionService.startHosted(spec, enrichments.getOrDefault(spec.name(), List.of()),
          hosted, clock);
      running.put(spec.name(), s);
      if (closing && running.remove(spec.name()) != null) {
        s.close(); // the host closed while it started: close() did not see it
        return;
      }
      watch(s);
    } catch (RuntimeException e) {
      stopped(spec.name(), "could not start: " + e.getMessage());
    }
  }

  /** Waits, on a thread of its own, for a part of {@code s} to fail; then stops that dimension alone. */
  private void watch(DimensionService s) {
    Thread t = new Thread(() -> {
      try {
        s.awaitFailure();
      } catch (InterruptedException e) {
        return;
      }
      if (closing || !running.remove(s.spec().name(), s)) {
        return; // stopped on purpose: the host is closing, or a reload removed or restarted the dimension
      }
      watchers.remove(s.spec().name(), Thread.currentThread());
      s.close();
      stopped(s.spec().name(), "failed: a part of the dimension stopped (see the log above)");
    }, "dimstream-watch-" + s.spec().name());
    t.setDaemon(true);
    watchers.put(s.spec().name(), t);
    t.start();
  }

  /**
   * Runs {@code newSpecs} from now on, without a restart of the process: a dimension no longer given stops (it
   * flushes and commits; its topics, state and table stay, as after a restart without it); a new one starts; one
   * named in {@code changed} (its spec or enrichments changed) stops and starts again with its new spec, as a
   * restart would; every other dimension runs on untouched, and one that had failed stays stopped. Nothing changes
   * when the new specs are refused.
   *
   * @throws ServiceException when the new specs share a name, disagree on a service-wide setting among themselves or
   *     with the running ones (those cannot change without a restart), or enrich a dimension they do not hold
   */
  public synchronized Reload reload(List<DimensionSpec> newSpecs, Map<String, List<EnrichmentSpec>> newEnrichments,
      Set<String> changed) {
    checkShared(newSpecs);
    checkSameService(specs.get(0), newSpecs.get(0));
    checkEnriched(newSpecs, newEnrichments);
    Set<String> names = new HashSet<>();
    newSpecs.forEach(spec -> names.add(spec.name()));
    List<String> removed = new ArrayList<>();
    for (DimensionSpec old : specs) {
      if (!names.contains(old.name())) {
        stopOnPurpose(old.name());
        failures.remove(old.name());
        server.unregister(old.name(), null);
        removed.add(old.name());
      }
    }
    Set<String> before = new HashSet<>();
    specs.forEach(spec -> before.add(spec.name()));
    specs = List.copyOf(newSpecs);
    enrichments = Map.copyOf(newEnrichments);
    List<String> added = new ArrayList<>();
    List<String> restarted = new ArrayList<>();
    for (DimensionSpec spec : newSpecs) {
      boolean isNew = !before.contains(spec.name());
      if (isNew || changed.contains(spec.name())) {
        stopOnPurpose(spec.name());
        failures.remove(spec.name());
        server.reportHealth(spec.name(), () -> new Health(false, Health.STARTING, Map.of()));
        startOne(spec);
        (isNew ? added : restarted).add(spec.name());
      }
    }
    Reload r = new Reload(added, removed, restarted);
    LOG.info("Reloaded the dimensions: {} added, {} removed, {} restarted with a changed spec; running now {}",
        added, removed, restarted, running.keySet().stream().sorted().toList());
    return r;
  }

  /** What a {@link #reload} did, by dimension name. */
  public record Reload(List<String> added, List<String> removed, List<String> restarted) {
    public boolean changedAnything() {
      return !added.isEmpty() || !removed.isEmpty() || !restarted.isEmpty();
    }
  }

  /** Stops {@code name} if it runs, without counting it as failed. */
  private void stopOnPurpose(String name) {
    DimensionService s = running.remove(name);
    Thread watcher = watchers.remove(name);
    if (watcher != null) {
      watcher.interrupt();
    }
    if (s != null) {
      try {
        s.close();
      } catch (RuntimeException e) {
        LOG.warn("Dimension {} did not stop cleanly: {}", name, e.toString());
      }
    }
  }

  private void stopped(String name, String reason) {
    failures.put(name, reason);
    LOG.error("Dimension {} stopped alone, the others keep running: {}", name, reason);
    server.unregister(name, new Health(false, Map.of("reason", reason)));
    if (running.isEmpty() && failures.size() == specs.size()) {
      noneLeft.countDown();
    }
  }

  /** Blocks until no dimension is left running (every one failed or could not start). */
  public void awaitNoneRunning() throws InterruptedException {
    noneLeft.await();
  }

  /** The dimensions running now, by name. */
  public Map<String, DimensionService> running() {
    return Map.copyOf(running);
  }

  /** Why each stopped dimension stopped, by name. */
  public Map<String, String> failures() {
    return Map.copyOf(failures);
  }

  /** The port of the shared query endpoint. */
  public int httpPort() {
    return server.port();
  }

  /** Stops every dimension (each flushes and commits), then the endpoint, then the broker. */
  @Override
  public void close() {
    closing = true;
    List<DimensionService> all = new ArrayList<>(running.values());
    running.clear();
    for (DimensionService s : all) {
      try {
        s.close();
      } catch (RuntimeException e) {
        LOG.warn("Dimension {} did not stop cleanly: {}", s.spec().name(), e.toString());
      }
    }
    if (server != null) {
      server.close();
    }
    if (broker != null) {
      broker.close();
    }
    LOG.info("dimstream stopped {} dimensions", all.size());
  }

  private static void writeBootstrapFile(Path dataDir, String servers) {
    Path file = dataDir.resolve("kafka").resolve(KafkaClients.BOOTSTRAP_FILE);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, servers);
    } catch (IOException e) {
      LOG.warn("Could not write {}: {}; `dimstream produce` will need --bootstrap-servers", file, e.toString());
    }
  }
}
