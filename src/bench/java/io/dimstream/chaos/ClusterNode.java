package io.dimstream.chaos;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.utils.Time;

/**
 * One node of the chaos cluster in its own JVM: a Kafka 4.4 KRaft server (broker and controller in one, as the
 * embedded broker is) whose clients must speak SASL_SSL with SCRAM-SHA-512; the controllers talk TLS among
 * themselves. The first start formats the data directory with the cluster id and the SCRAM credentials of the
 * brokers' own user and the clients' user, so the credentials are in the metadata log before any client connects.
 * Usage: {@code ClusterNode <node id> <data dir> <host> <voters: id:clientPort:controllerPort,...> <cluster id>
 * <tls dir>}; the passwords come from the environment ({@link Secrets}). Runs until killed.
 */
public final class ClusterNode {
  private ClusterNode() {}

  /** A node's ports. */
  record Voter(int id, int clientPort, int controllerPort) {
    static List<Voter> parse(String spec) {
      List<Voter> out = new ArrayList<>();
      for (String v : spec.split(",")) {
        String[] f = v.split(":");
        out.add(new Voter(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2])));
      }
      return out;
    }

    static String format(List<Voter> voters) {
      return String.join(",", voters.stream().map(v -> v.id + ":" + v.clientPort + ":" + v.controllerPort).toList());
    }
  }

  /** How a node's log line starts once its broker runs (unfenced by the controller). */
  static final String STARTED = "chaos node ";

  public static void main(String[] args) throws Exception {
    int nodeId = Integer.parseInt(args[0]);
    Path dir = Path.of(args[1]).toAbsolutePath();
    String host = args[2];
    List<Voter> voters = Voter.parse(args[3]);
    String clusterId = args[4];
    Path tls = Path.of(args[5]).toAbsolutePath();
    Secrets secrets = Secrets.fromEnvironment();
    Voter self = voters.stream().filter(v -> v.id == nodeId).findFirst().orElseThrow(
        () -> new IllegalArgumentException("node " + nodeId + " is not among the voters " + args[3]));

    Properties props = serverProperties(nodeId, dir, host, voters, self, tls, secrets);
    Files.createDirectories(dir.resolve("logs"));
    Path file = dir.resolve("server.properties");
    Properties shown = new Properties();
    props.forEach((k, v) -> shown.put(k, k.toString().contains("password") || k.toString().contains("jaas")
        ? "[redacted]" : v));
    try (OutputStream out = Files.newOutputStream(file)) {
      shown.store(out, "chaos cluster node " + nodeId + " (secrets redacted)");
    }
    Path formatting = dir.resolve("format.properties");
    try (OutputStream out = Files.newOutputStream(formatting)) {
      props.store(out, null);
    }
    try {
      format(formatting, clusterId, secrets);
    } finally {
      Files.deleteIfExists(formatting);
    }
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
    server.startup();
    System.err.println(STARTED + nodeId + " started on " + host + ":" + self.clientPort);
    new CountDownLatch(1).await(); // until killed; a SIGTERM ends the JVM without a clean shutdown on purpose
  }

  static Properties serverProperties(int nodeId, Path dir, String host, List<Voter> voters, Voter self, Path tls,
      Secrets secrets) {
    Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", Integer.toString(nodeId));
    p.setProperty("controller.quorum.voters", String.join(",",
        voters.stream().map(v -> v.id + "@" + host + ":" + v.controllerPort).toList()));
    p.setProperty("listeners", "SASL_SSL://" + host + ":" + self.clientPort + ",CONTROLLER://" + host + ":"
        + self.controllerPort);
    p.setProperty("advertised.listeners", "SASL_SSL://" + host + ":" + self.clientPort);
    p.setProperty("listener.security.protocol.map", "SASL_SSL:SASL_SSL,CONTROLLER:SSL");
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("inter.broker.listener.name", "SASL_SSL");
    p.setProperty("sasl.enabled.mechanisms", "SCRAM-SHA-512");
    p.setProperty("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
    p.setProperty("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", jaas(Secrets.BROKER_USER,
        secrets.brokerPassword()));
    p.setProperty("ssl.keystore.type", "PKCS12");
    p.setProperty("ssl.keystore.location", tls.resolve(Tls.KEYSTORE).toString());
    p.setProperty("ssl.keystore.password", secrets.storePassword());
    p.setProperty("ssl.truststore.type", "PKCS12");
    p.setProperty("ssl.truststore.location", tls.resolve(Tls.TRUSTSTORE).toString());
    p.setProperty("ssl.truststore.password", secrets.storePassword());
    p.setProperty("log.dirs", dir.resolve("logs").toString());
    // Replicated the way a production cluster is: an acknowledged write is on two nodes at least.
    p.setProperty("default.replication.factor", "3");
    p.setProperty("min.insync.replicas", "2");
    p.setProperty("offsets.topic.replication.factor", "3");
    p.setProperty("transaction.state.log.replication.factor", "3");
    p.setProperty("transaction.state.log.min.isr", "2");
    p.setProperty("share.coordinator.state.topic.replication.factor", "3");
    p.setProperty("share.coordinator.state.topic.min.isr", "2");
    p.setProperty("unclean.leader.election.enable", "false");
    p.setProperty("auto.create.topics.enable", "false");
    // Fewer partitions and threads than Kafka's defaults: three nodes share two cores with everything else.
    p.setProperty("offsets.topic.num.partitions", "6");
    p.setProperty("transaction.state.log.num.partitions", "6");
    p.setProperty("num.partitions", "6");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    p.setProperty("num.network.threads", "2");
    p.setProperty("num.io.threads", "2");
    p.setProperty("num.replica.fetchers", "1");
    p.setProperty("num.recovery.threads.per.data.dir", "1");
    p.setProperty("background.threads", "2");
    p.setProperty("log.cleaner.threads", "1");
    p.setProperty("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
    return p;
  }

  static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
        + password + "\";";
  }

  private static void format(Path properties, String clusterId, Secrets secrets) {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int code;
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      code = StorageTool.execute(new String[] {"format", "--ignore-formatted", "-t", clusterId,
          "-c", properties.toString(),
          "-S", "SCRAM-SHA-512=[name=" + Secrets.BROKER_USER + ",password=" + secrets.brokerPassword() + "]",
          "-S", "SCRAM-SHA-512=[name=" + Secrets.CLIENT_USER + ",password=" + secrets.clientPassword() + "]"}, out);
    }
    if (code != 0) {
      throw new IllegalStateException("formatting the node's data directory failed (exit " + code + "): "
          + captured.toString(StandardCharsets.UTF_8));
    }
  }
}
