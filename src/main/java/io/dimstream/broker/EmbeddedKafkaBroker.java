package io.dimstream.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller, the Apache Kafka 4.4 server) running in
 * this JVM on 127.0.0.1, for {@code dimstream run} without {@code bootstrap.servers} and for integration tests.
 *
 * <p>It is configured for exactly-once processing on one node (transaction state and offsets topics with
 * replication factor 1 and min ISR 1) and keeps everything in its data directory: the cluster id and the ports
 * it used ({@value BrokerState#FILE_NAME}), the generated {@code server.properties}, the log directory
 * {@code logs/}, and {@value DataDirLock#FILE_NAME}, locked while the broker runs so that a second broker on the
 * same directory is refused before it touches anything. Starting again on the same directory keeps topics,
 * records, committed offsets and the cluster id, and reuses the previous client port when it is free, so clients'
 * {@code bootstrap.servers} stays valid.
 *
 * <p>Close Kafka Streams, producers, consumers and admin clients before {@link #close()}: clients still
 * connected keep retrying against a stopped broker. A fatal broker fault calls Kafka's
 * {@code org.apache.kafka.common.utils.internals.Exit.halt}, which stops the JVM unless a halt procedure is set.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
  static final String LOG_DIR = "logs";
  static final String SERVER_PROPERTIES = "server.properties";
  private static final int NODE_ID = 1;

  private final Path dataDir;
  private final BrokerState state;
  private final KafkaRaftServer server;
  private final DataDirLock lock;
  private final AtomicBoolean closed = new AtomicBoolean();

  private EmbeddedKafkaBroker(Path dataDir, BrokerState state, KafkaRaftServer server, DataDirLock lock) {
    this.dataDir = dataDir;
    this.state = state;
    this.server = server;
    this.lock = lock;
  }

  /**
   * Formats the data directory if it is new, starts the broker and returns once it accepts clients.
   * Takes a few seconds.
   *
   * @param dataDir a directory owned by this broker alone; created if missing. The service uses
   *                {@code <service.data_dir>/kafka}.
   * @param port    the client port on 127.0.0.1, 1..65535; 0 = the port this directory used last time if it is
   *                free, else any free port (see {@link #bootstrapServers()})
   * @throws IllegalArgumentException if {@code port} is outside 0..65535
   * @throws BrokerException          if the port is taken, the directory is unusable or used by another broker
   *                                  (in this or another process), or the broker fails to start (the message
   *                                  says how to fix it); nothing in the directory is changed when it is in use
   */
  public static EmbeddedKafkaBroker start(Path dataDir, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535 (0 = a free port), was " + port);
    }
    long started = System.nanoTime();
    Path dir = dataDir.toAbsolutePath().normalize();
    DataDirLock lock = DataDirLock.acquire(dir);
    try {
      EmbeddedKafkaBroker broker = start(dir, port, lock);
      LOG.info("Embedded Kafka broker started on {} in {} ms (data dir {}, cluster id {})",
          broker.bootstrapServers(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), dir,
          broker.clusterId());
      return broker;
    } catch (RuntimeException | Error e) {
      lock.close();
      throw e;
    }
  }

  private static EmbeddedKafkaBroker start(Path dir, int port, DataDirLock lock) {
    BrokerState state;
    Path serverProperties;
    Properties props;
    try {
      Files.createDirectories(dir.resolve(LOG_DIR));
      Optional<BrokerState> previous = BrokerState.read(dir);
      if (port != 0 && !LocalPorts.isFree(port)) {
        throw BrokerErrors.portInUse(port);
      }
      int clientPort = port != 0 ? port : LocalPorts.reuseOrFree(previous.map(BrokerState::port).orElse(0));
      int controllerPort = previous.map(BrokerState::controllerPort).filter(p -> p != clientPort)
          .map(LocalPorts::reuseOrFree).orElseGet(LocalPorts::free);
      while (controllerPort == clientPort) {
        controllerPort = LocalPorts.free();
      }
      state = new BrokerState(previous.map(BrokerState::clusterId).orElseGet(() -> Uuid.randomUuid().toString()),
          clientPort, controllerPort);
      props = serverProperties(dir, state);
      serverProperties = dir.resolve(SERVER_PROPERTIES);
      try (OutputStream out = Files.newOutputStream(serverProperties)) {
        props.store(out, "generated by dimstream on every start; edits are overwritten");
      }
      state.write(dir);
    } catch (IOException e) {
      throw BrokerErrors.dataDirUnusable(dir, e);
    }
    format(dir, state.clusterId(), serverProperties);
    KafkaRaftServer server;
    try {
      server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
    } catch (RuntimeException e) {
      throw BrokerErrors.startFailed(dir, e);
    }
    try {
      server.startup();
    } catch (RuntimeException e) {
      shutdownQuietly(server);
      throw BrokerErrors.startFailed(dir, e);
    }
    return new EmbeddedKafkaBroker(dir, state, server, lock);
  }

  /** The {@code bootstrap.servers} value for clients: {@code 127.0.0.1:<port>}. */
  public String bootstrapServers() {
    return LocalPorts.HOST + ":" + state.port();
  }

  /** The client port on 127.0.0.1. */
  public int port() {
    return state.port();
  }

  /** The Kafka cluster id, kept in the data directory across restarts. */
  public String clusterId() {
    return state.clusterId();
  }

  /** The absolute data directory. */
  public Path dataDir() {
    return dataDir;
  }

  /**
   * Client properties to reach this broker ({@code bootstrap.servers} only), for producers, consumers and admin
   * clients; a new mutable map each call.
   */
  public Map<String, Object> clientProperties() {
    return new HashMap<>(Map.of("bootstrap.servers", bootstrapServers()));
  }

  /**
   * Stops the broker and waits until its threads have ended; the data directory is kept. Idempotent. Errors
   * during shutdown are logged, not thrown.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long started = System.nanoTime();
    try {
      shutdownQuietly(server);
    } finally {
      lock.close();
    }
    LOG.info("Embedded Kafka broker on {} stopped in {} ms", bootstrapServers(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  private static void shutdownQuietly(KafkaRaftServer server) {
    try {
      server.shutdown();
      server.awaitShutdown();
    } catch (RuntimeException e) {
      LOG.warn("Embedded Kafka broker did not shut down cleanly", e);
    }
  }

  private static void format(Path dir, String clusterId, Path serverProperties) {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int code;
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      code = StorageTool.execute(new String[] {"format", "--ignore-formatted", "-t", clusterId,
          "-c", serverProperties.toString()}, out);
    } catch (RuntimeException e) {
      throw BrokerErrors.formatFailed(dir, -1, String.valueOf(e.getMessage()));
    }
    String output = captured.toString(StandardCharsets.UTF_8);
    if (code != 0) {
      throw BrokerErrors.formatFailed(dir, code, output);
    }
    LOG.debug("Kafka storage format in {}: {}", dir, output.strip());
  }

  static Properties serverProperties(Path dir, BrokerState state) {
    String host = LocalPorts.HOST;
    Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", Integer.toString(NODE_ID));
    p.setProperty("controller.quorum.voters", NODE_ID + "@" + host + ":" + state.controllerPort());
    p.setProperty("listeners", "PLAINTEXT://" + host + ":" + state.port() + ",CONTROLLER://" + host + ":"
        + state.controllerPort());
    p.setProperty("advertised.listeners", "PLAINTEXT://" + host + ":" + state.port());
    p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("inter.broker.listener.name", "PLAINTEXT");
    p.setProperty("log.dirs", dir.resolve(LOG_DIR).toString());
    // One node: internal topics must not ask for more replicas than exist, or transactions (EOS) never start.
    p.setProperty("offsets.topic.replication.factor", "1");
    p.setProperty("offsets.topic.num.partitions", "5");
    p.setProperty("transaction.state.log.replication.factor", "1");
    p.setProperty("transaction.state.log.min.isr", "1");
    p.setProperty("transaction.state.log.num.partitions", "5");
    p.setProperty("share.coordinator.state.topic.replication.factor", "1");
    p.setProperty("share.coordinator.state.topic.min.isr", "1");
    p.setProperty("default.replication.factor", "1");
    p.setProperty("min.insync.replicas", "1");
    p.setProperty("num.partitions", "1");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    // A laptop, not a data centre: fewer threads.
    p.setProperty("num.network.threads", "2");
    p.setProperty("num.io.threads", "4");
    p.setProperty("num.recovery.threads.per.data.dir", "1");
    p.setProperty("log.cleaner.threads", "1");
    overrides(System.getProperties()).forEach(p::setProperty);
    return p;
  }

  /** The prefix of the JVM system properties that set a broker setting of the embedded broker. */
  static final String OVERRIDE_PREFIX = "dimstream.broker.";

  /** Settings the embedded broker owns: where it listens, who it is and where it keeps its logs. */
  private static final java.util.Set<String> MANAGED = java.util.Set.of("process.roles", "node.id",
      "controller.quorum.voters", "listeners", "advertised.listeners", "listener.security.protocol.map",
      "controller.listener.names", "inter.broker.listener.name", "log.dirs", "log.dir");

  /**
   * Broker settings given as {@code -Ddimstream.broker.<setting>=<value>}, e.g. a larger
   * {@code log.cleaner.dedupe.buffer.size} for topics of a hundred million keys; the settings the embedded broker
   * owns are refused, with the reason.
   */
  static java.util.Map<String, String> overrides(Properties system) {
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    for (String name : system.stringPropertyNames()) {
      if (name.startsWith(OVERRIDE_PREFIX)) {
        String setting = name.substring(OVERRIDE_PREFIX.length());
        if (MANAGED.contains(setting)) {
          throw BrokerErrors.managedSetting(name, setting);
        }
        out.put(setting, system.getProperty(name));
      }
    }
    return out;
  }
}
