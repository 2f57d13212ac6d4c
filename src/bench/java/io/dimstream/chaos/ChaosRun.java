package io.dimstream.chaos;

import io.dimstream.bench.Figures;
import io.dimstream.compactor.VersionsTopicIdentity;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/**
 * {@code bench/chaos}: runs a secured three-broker KRaft cluster, an S3 server and three service instances as
 * separate processes, sends a seeded change stream at a steady rate while a seeded schedule of faults kills,
 * pauses and cuts them off, then waits until everything caught up and checks the table against the reference
 * fold of exactly the records the brokers acknowledged. Prints one JSON line per figure on stdout and exits 1
 * when a version was lost or duplicated, the table differs, or a check failed. See docs/chaos.md.
 */
public final class ChaosRun {
  static final String LOGBACK = Path.of("src/bench/resources/logback-chaos.xml").toAbsolutePath().toString();
  static final String BUCKET = "chaos";
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
  /** What a compactor logs when the table moved past it while it slept: it commits nothing and re-reads. */
  static final String ZOMBIE_COMPACTOR = "another compactor has written the table meanwhile";
  /** What Kafka logs (at ERROR) when a zombie stream task's producer sends with an epoch its successor replaced. */
  static final String ZOMBIE_PRODUCER = "InvalidProducerEpochException";

  private ChaosRun() {}

  /** The options of {@code bench/chaos}. */
  record Options(double minutes, long seed, int instances, int brokers, double rate, int keys, int partitions,
      boolean partitionsWanted, Path work, double catchUpMinutes, int instanceTracks, boolean faults,
      double deliveryTimeoutSeconds) {
    static Options parse(String[] args) {
      double minutes = 2;
      long seed = 1;
      int instances = 3;
      int brokers = 3;
      double rate = 100;
      int keys = 2_000;
      int partitions = 6;
      boolean net = true;
      Path work = null;
      double catchUp = 10;
      int tracks = 1;
      boolean faults = true;
      double deliveryTimeout = Workload.DELIVERY_TIMEOUT_MS / 1000.0;
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--minutes" -> minutes = Double.parseDouble(args[++i]);
          case "--seed" -> seed = Long.parseLong(args[++i]);
          case "--instances" -> instances = Integer.parseInt(args[++i]);
          case "--brokers" -> brokers = Integer.parseInt(args[++i]);
          case "--rate" -> rate = Double.parseDouble(args[++i]);
          case "--keys" -> keys = Integer.parseInt(args[++i]);
          case "--partitions" -> partitions = Integer.parseInt(args[++i]);
          case "--no-network-faults" -> net = false;
          case "--work" -> work = Path.of(args[++i]);
          case "--catch-up-minutes" -> catchUp = Double.parseDouble(args[++i]);
          case "--instance-tracks" -> tracks = Integer.parseInt(args[++i]);
          case "--no-faults" -> faults = false;
          case "--delivery-timeout-s" -> deliveryTimeout = Double.parseDouble(args[++i]);
          default -> throw new IllegalArgumentException("unknown argument '" + a + "'. Fix: use --minutes N, "
              + "--seed S, --instances N, --brokers N, --rate R, --keys N, --partitions N, --no-network-faults, "
              + "--work DIR, --catch-up-minutes N, --instance-tracks N, --delivery-timeout-s S or --no-faults (a baseline)");
        }
      }
      if (brokers < 3) {
        throw new IllegalArgumentException("--brokers must be 3 or more: the topics are replicated 3 times with "
            + "min.insync.replicas 2, was " + brokers);
      }
      if (instances < 1 || partitions < instances) {
        throw new IllegalArgumentException("--instances must be 1.." + partitions + " (--partitions), was "
            + instances);
      }
      if (tracks < 1 || tracks > instances) {
        throw new IllegalArgumentException("--instance-tracks must be 1.." + instances + " (--instances), was "
            + tracks);
      }
      if (deliveryTimeout < 1) {
        throw new IllegalArgumentException("--delivery-timeout-s must be 1 or more (seconds the producer tries a "
            + "record before it gives up and the harness sends it again), was " + deliveryTimeout);
      }
      return new Options(minutes, seed, instances, brokers, rate, keys, partitions, net, work, catchUp, tracks, faults,
          deliveryTimeout);
    }
  }

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("bench/chaos: " + e.getMessage());
      System.exit(2);
      return;
    }
    int code = run(o);
    System.exit(code);
  }

  static int run(Options o) throws Exception {
    Path work = o.work() != null ? o.work() : Files.createTempDirectory("dimstream-chaos");
    Files.createDirectories(work);
    log("work directory " + work + " (one log per process, history.jsonl: the faults)");
    Secrets secrets = Secrets.random();
    System.setProperty("aws.accessKeyId", "chaos");
    System.setProperty("aws.secretAccessKey", "chaos-secret");
    System.setProperty("aws.region", "us-east-1");
    try (Network network = Network.setUp(o.instances(), o.partitionsWanted())) {
      if (!network.partitions()) {
        log("no network partitions: " + network.unavailableReason());
      }
      String host = network.serverHost();
      Path tls = work.resolve("tls");
      Tls.create(tls, List.of(host, "127.0.0.1"), secrets.storePassword());
      log("starting " + o.brokers() + " brokers (SASL_SSL, SCRAM-SHA-512) on " + host);
      try (BrokerCluster brokers = new BrokerCluster(work, host, o.brokers(), tls, secrets)) {
        brokers.startAll();
        if (!brokers.awaitAll(Duration.ofMinutes(3))) {
          log("the brokers did not form a cluster within 3 minutes; see " + work + "/broker-*.log");
          return 1;
        }
        int storePort = BrokerCluster.freePorts(host, 1).get(0);
        Child store = new Child("store", Child.java(List.of("-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Dlogback.configurationFile=" + LOGBACK), StoreServer.class.getName(),
            List.of(work.resolve("store").toString(), host, Integer.toString(storePort), BUCKET)), Map.of(),
            work.resolve("store.log"));
        store.start();
        try {
          if (!awaitLine(store.log(), "ready", Duration.ofMinutes(2))) {
            log("the S3 server did not start; see " + store.log());
            return 1;
          }
          String endpoint = "http://" + host + ":" + storePort;
          Path specFile = writeSpec(work, brokers, tls, endpoint, o.partitions());
          DimensionSpec spec = DimensionSpecLoader.load(specFile);
          Map<String, String> env = new HashMap<>(secrets.environment());
          env.put("AWS_ACCESS_KEY_ID", "chaos");
          env.put("AWS_SECRET_ACCESS_KEY", "chaos-secret");
          env.put("AWS_REGION", "us-east-1");
          return runInstances(o, work, network, brokers, spec, specFile, env, List.of(storePort));
        } finally {
          store.kill();
        }
      }
    }
  }

  private static int runInstances(Options o, Path work, Network network, BrokerCluster brokers, DimensionSpec spec,
      Path specFile, Map<String, String> env, List<Integer> storePorts) throws Exception {
    Map<String, Object> kafka = brokers.clientProperties();
    Workload workload = new Workload(spec, o.seed(), (int) Math.round(o.rate() * o.minutes() * 60), o.keys(),
        0.002);
    log("starting " + o.instances() + " instances of dimstream run");
    try (Instances instances = new Instances(work, o.instances(), specFile, network, env)) {
      instances.startAll();
      if (!awaitTopics(kafka, spec, Duration.ofMinutes(3))) {
        log("the instances did not create the topics within 3 minutes; see " + work + "/instance-*.log");
        return 1;
      }
      if (!awaitGroup(kafka, "dimstream-" + spec.name(), o.instances(), Duration.ofMinutes(3))) {
        log("the instances' topology did not form a group of " + o.instances() + " within 3 minutes; going on");
      }
      String appIdPrefix = new VersionsTopicIdentity(spec.name(), spec.topics().versions(),
          VersionsTopicIdentity.topicId(kafka, spec.topics().versions())).appIdPrefix();
      try (Visibility visibility = new Visibility(kafka, spec.topics().versions(), appIdPrefix, o.partitions(),
          () -> DeltaTable.open(spec.service().tableStore()));
          PrintWriter history = new PrintWriter(Files.newBufferedWriter(work.resolve("history.jsonl"),
              StandardCharsets.UTF_8))) {
        visibility.start();
        long produceStart = System.currentTimeMillis();
        FaultSchedule schedule = new FaultSchedule(brokers, instances, network, storePorts, o.seed(),
            SESSION_TIMEOUT, o.instanceTracks(), history, produceStart);
        log(String.format("sending %,d records at %.0f/s for %.1f minutes%s", workload.records(), o.rate(),
            o.minutes(), o.faults() ? " under faults" : ", no faults (baseline)"));
        if (o.faults()) {
          schedule.start();
        }
        workload.send(kafka, spec.topics().changes(), o.rate(), (int) Math.round(o.deliveryTimeoutSeconds() * 1000));
        long produceEnd = System.currentTimeMillis();
        log("all records sent; letting the running faults heal");
        schedule.close();
        for (int i = 0; i < instances.size(); i++) {
          instances.restartIfExited(i);
        }
        for (int i = 0; i < brokers.size(); i++) {
          if (!brokers.node(i).alive()) {
            brokers.node(i).start();
          }
        }
        long healed = System.currentTimeMillis();
        log("waiting until the topology and the table have caught up");
        boolean caughtUp = Checker.awaitCaughtUp(kafka, spec, Duration.ofMillis((long) (o.catchUpMinutes()
            * 60_000)));
        long caughtUpAt = System.currentTimeMillis();
        Thread.sleep(2 * Visibility.POLL_MS);
        Checker.Result r = Checker.check(kafka, spec, workload);
        List<Fault> faults = schedule.faults();
        Latencies lat = Latencies.of(visibility.samples(), faults);
        Map<String, Object> setup = Figures.params("minutes", o.minutes(), "seed", o.seed(), "rate", o.rate(),
            "keys", o.keys(), "partitions", o.partitions(), "brokers", o.brokers(), "instances", o.instances(),
            "instance_fault_tracks", o.faults() ? o.instanceTracks() : 0,
            "store", "s3 (s3proxy)", "network_faults", network.partitions() ? "iptables in netns"
                : network.unavailableReason());
        Report.print(setup, workload, faults, network, r, lat, caughtUp, (caughtUpAt - healed) / 1000.0,
            (produceEnd - produceStart) / 1000.0, instances.unexpectedExits(), schedule.failure());
        Report.zombies(setup, instances.linesContaining(ZOMBIE_COMPACTOR), instances.linesContaining(ZOMBIE_PRODUCER));
        log("work directory " + work);
        return r.passed() && caughtUp && workload.failure() == null ? 0 : 1;
      }
    }
  }

  /** The example customers spec with the service section of this run: the cluster, the S3 table, 2 s commits. */
  static Path writeSpec(Path work, BrokerCluster brokers, Path tls, String endpoint, int partitions)
      throws IOException {
    String example = Files.readString(Path.of("examples/customers.yaml"));
    String yaml = example + "\nservice:\n"
        + "  table_path: s3://" + BUCKET + "/customers\n"
        + "  storage: {s3: {endpoint: \"" + endpoint + "\", region: us-east-1, path_style: true, "
        + "request_timeout: 5s, max_attempts: 6}}\n"
        + "  partitions: " + partitions + "\n"
        + "  compaction: {interval: 2s}\n"
        + "  http: {port: 0}\n"
        + "  kafka:\n"
        + "    bootstrap.servers: \"" + brokers.bootstrapServers() + "\"\n"
        + "    security.protocol: SASL_SSL\n"
        + "    sasl.mechanism: SCRAM-SHA-512\n"
        // the passwords stay out of the file: Kafka's own config provider reads them from the environment
        + "    config.providers: env\n"
        + "    config.providers.env.class: org.apache.kafka.common.config.provider.EnvVarConfigProvider\n"
        + "    sasl.jaas.config: 'org.apache.kafka.common.security.scram.ScramLoginModule required "
        + "username=\"" + Secrets.CLIENT_USER + "\" password=\"${env:" + Secrets.ENV_CLIENT + "}\";'\n"
        + "    ssl.truststore.type: PKCS12\n"
        + "    ssl.truststore.location: \"" + tls.resolve(Tls.TRUSTSTORE) + "\"\n"
        + "    ssl.truststore.password: \"${env:" + Secrets.ENV_STORE + "}\"\n"
        + "    session.timeout.ms: \"" + SESSION_TIMEOUT.toMillis() + "\"\n"
        + "    heartbeat.interval.ms: \"3000\"\n";
    Path file = work.resolve("customers.yaml");
    Files.writeString(file, yaml);
    return file;
  }

  private static boolean awaitTopics(Map<String, Object> kafka, DimensionSpec spec, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      while (System.nanoTime() < deadline) {
        try {
          var names = admin.listTopics().names().get();
          if (names.contains(spec.topics().changes()) && names.contains(spec.topics().versions())
              && names.contains(spec.topics().dlq())) {
            return true;
          }
        } catch (Exception e) {
          // not yet
        }
        Thread.sleep(1_000);
      }
    }
    return false;
  }

  /** Waits until the consumer group {@code group} is stable with {@code members} members. */
  private static boolean awaitGroup(Map<String, Object> kafka, String group, int members, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      while (System.nanoTime() < deadline) {
        try {
          var d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
          if (d.members().size() == members && d.groupState() == org.apache.kafka.common.GroupState.STABLE) {
            return true;
          }
        } catch (Exception e) {
          // not yet
        }
        Thread.sleep(1_000);
      }
    }
    return false;
  }

  private static boolean awaitLine(Path log, String line, Duration timeout) throws IOException,
      InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(log) && Files.readAllLines(log).stream().anyMatch(l -> l.strip().equals(line))) {
        return true;
      }
      Thread.sleep(200);
    }
    return false;
  }

  static void log(String message) {
    System.err.println("bench/chaos: " + message);
  }
}
