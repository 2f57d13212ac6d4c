package io.dimstream.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;

/** The chaos cluster: {@code n} {@link ClusterNode} JVMs on one host address, each restartable after a kill. */
final class BrokerCluster implements AutoCloseable {
  static final String HEAP = "-Xmx384m";
  private final String host;
  private final List<ClusterNode.Voter> voters;
  private final List<Child> nodes = new ArrayList<>();
  private final Path tls;
  private final Secrets secrets;

  BrokerCluster(Path work, String host, int n, Path tls, Secrets secrets) throws IOException {
    this.host = host;
    this.tls = tls;
    this.secrets = secrets;
    List<Integer> ports = freePorts(host, 2 * n);
    List<ClusterNode.Voter> v = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      v.add(new ClusterNode.Voter(i + 1, ports.get(2 * i), ports.get(2 * i + 1)));
    }
    this.voters = List.copyOf(v);
    String clusterId = Uuid.randomUuid().toString();
    for (ClusterNode.Voter voter : voters) {
      Path dir = work.resolve("broker-" + voter.id());
      Files.createDirectories(dir);
      List<String> cmd = Child.java(List.of(HEAP, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
              "-Dlogback.configurationFile=" + ChaosRun.LOGBACK),
          ClusterNode.class.getName(), List.of(Integer.toString(voter.id()), dir.toString(), host,
              ClusterNode.Voter.format(voters), clusterId, tls.toString()));
      nodes.add(new Child("broker-" + voter.id(), cmd, secrets.environment(), work.resolve("broker-" + voter.id()
          + ".log")));
    }
  }

  static List<Integer> freePorts(String host, int count) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      List<Integer> out = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(host));
        held.add(s);
        out.add(s.getLocalPort());
      }
      return out;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }

  int size() {
    return nodes.size();
  }

  Child node(int i) {
    return nodes.get(i);
  }

  List<Integer> clientPorts() {
    return voters.stream().map(ClusterNode.Voter::clientPort).toList();
  }

  List<Integer> allPorts() {
    List<Integer> out = new ArrayList<>(clientPorts());
    voters.forEach(v -> out.add(v.controllerPort()));
    return out;
  }

  String bootstrapServers() {
    return String.join(",", voters.stream().map(v -> host + ":" + v.clientPort()).toList());
  }

  /** Client properties of the clients' SCRAM user over TLS, with the password itself (for the harness's clients). */
  Map<String, Object> clientProperties() {
    Map<String, Object> p = new HashMap<>();
    p.put("bootstrap.servers", bootstrapServers());
    p.put("security.protocol", "SASL_SSL");
    p.put("sasl.mechanism", "SCRAM-SHA-512");
    p.put("sasl.jaas.config", ClusterNode.jaas(Secrets.CLIENT_USER, secrets.clientPassword()));
    p.put("ssl.truststore.type", "PKCS12");
    p.put("ssl.truststore.location", tls.resolve(Tls.TRUSTSTORE).toString());
    p.put("ssl.truststore.password", secrets.storePassword());
    return p;
  }

  void startAll() throws IOException {
    for (Child c : nodes) {
      c.start();
    }
  }

  /** Waits until every node is registered with the controller quorum and answers a SASL_SSL client. */
  boolean awaitAll(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<String, Object> p = clientProperties();
    p.put("request.timeout.ms", "5000");
    p.put("default.api.timeout.ms", "10000");
    try (Admin admin = Admin.create(p)) {
      while (System.nanoTime() < deadline) {
        try {
          if (admin.describeCluster().nodes().get().size() == nodes.size()) {
            return true;
          }
        } catch (Exception e) {
          // not up yet
        }
        Thread.sleep(500);
      }
    }
    return false;
  }

  /** How often node {@code i} has logged that it started, over all its starts. */
  int starts(int i) throws java.io.IOException {
    Path log = nodes.get(i).log();
    if (!Files.exists(log)) {
      return 0;
    }
    try (var lines = Files.lines(log, java.nio.charset.StandardCharsets.ISO_8859_1)) {
      return (int) lines.filter(l -> l.startsWith(ClusterNode.STARTED)).count();
    }
  }

  /**
   * Waits until node {@code i}, started again after a kill, has logged more than {@code startsBefore} starts (its
   * broker is unfenced) and every partition of every topic, internal ones too, has all its replicas in sync again,
   * at most {@code timeout}. Only then may another node go down: a node that is still starting or catching up
   * counts as down, and two down nodes leave partitions under {@code min.insync.replicas} and the controller
   * quorum without a majority, which stops every producer and transaction of the cluster. Returns whether it did.
   */
  boolean awaitBackInSync(int i, int startsBefore, Duration timeout) throws InterruptedException,
      java.io.IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (starts(i) <= startsBefore) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      if (!nodes.get(i).alive()) {
        nodes.get(i).start();
      }
      Thread.sleep(500);
    }
    Map<String, Object> p = clientProperties();
    p.put("request.timeout.ms", "5000");
    p.put("default.api.timeout.ms", "10000");
    try (Admin admin = Admin.create(p)) {
      while (System.nanoTime() < deadline) {
        try {
          var names = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
              .names().get();
          boolean inSync = admin.describeTopics(names).allTopicNames().get().values().stream()
              .flatMap(t -> t.partitions().stream())
              .allMatch(part -> part.isr().size() == part.replicas().size());
          if (inSync) {
            return true;
          }
        } catch (Exception e) {
          // the cluster is still settling
        }
        Thread.sleep(500);
      }
    }
    return false;
  }

  @Override
  public void close() throws InterruptedException {
    for (Child c : nodes) {
      c.kill();
    }
  }
}
