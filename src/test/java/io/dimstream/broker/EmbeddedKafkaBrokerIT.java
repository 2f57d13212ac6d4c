package io.dimstream.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.spec.DimensionSpec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.internals.Exit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaBrokerIT {
  private static final DimensionSpec SPEC = DimensionSpec.builder("customers")
      .column("id", "long").column("name", "string").column("updated_at", "timestamp")
      .key("id").sequence("updated_at").build();

  private final AtomicReference<String> exitCall = new AtomicReference<>();

  @TempDir
  Path dataDir;

  @BeforeEach
  void interceptExit() {
    BrokerExtension.interceptExit(exitCall);
  }

  @AfterEach
  void resetExit() {
    Exit.resetExitProcedure();
    Exit.resetHaltProcedure();
    assertThat(exitCall.get()).as("Kafka Exit.exit/halt call").isNull();
  }

  @Test
  void shouldKeepTopicsCommittedRecordsPortAndClusterIdAcrossRestart() throws Exception {
    Set<String> threadsBefore = nonDaemonThreads();
    String bootstrap;
    String clusterId;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir, 0)) {
      bootstrap = broker.bootstrapServers();
      clusterId = broker.clusterId();
      assertThat(bootstrap).startsWith("127.0.0.1:");

      assertThat(TopicProvisioner.ensure(broker.clientProperties(), SPEC))
          .containsExactly("customers.changes", "customers.versions", "customers.dlq");

      try (KafkaProducer<String, String> producer = transactionalProducer(bootstrap)) {
        producer.initTransactions();
        sendInTransaction(producer, List.of("a", "b"), true);
        sendInTransaction(producer, List.of("aborted"), false);
        sendInTransaction(producer, List.of("c"), true);
      }
      assertThat(readAll(bootstrap, "read_committed")).containsExactly("a", "b", "c");
      assertThat(readAll(bootstrap, "read_uncommitted")).containsExactly("a", "b", "aborted", "c");
    }
    assertThat(strayThreads(threadsBefore)).as("non-daemon threads left after close").isEmpty();

    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir, 0)) {
      assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
      assertThat(broker.clusterId()).isEqualTo(clusterId);
      assertThat(TopicProvisioner.ensure(broker.clientProperties(), SPEC)).isEmpty();
      assertThat(cleanupPolicy(bootstrap, "customers.versions")).isEqualTo("compact");
      assertThat(readAll(bootstrap, "read_committed")).containsExactly("a", "b", "c");
    }
    assertThat(strayThreads(threadsBefore)).as("non-daemon threads left after close").isEmpty();
  }

  @Test
  void shouldRefuseASecondBrokerOnTheSameDataDirectoryWithoutTouchingIt() throws Exception {
    try (EmbeddedKafkaBroker first = EmbeddedKafkaBroker.start(dataDir, 0)) {
      byte[] stateBefore = Files.readAllBytes(dataDir.resolve(BrokerState.FILE_NAME));

      assertThatThrownBy(() -> EmbeddedKafkaBroker.start(dataDir, 0))
          .isInstanceOf(BrokerException.class)
          .hasMessageContaining(dataDir.toAbsolutePath().toString())
          .hasMessageContaining("in use by another embedded broker");

      assertThat(Files.readAllBytes(dataDir.resolve(BrokerState.FILE_NAME))).isEqualTo(stateBefore);
      assertThat(TopicProvisioner.ensure(first.clientProperties(), SPEC)).hasSize(3);
    }
  }

  @Test
  void shouldRefuseADataDirectoryThatIsAFile() throws IOException {
    Path file = Files.writeString(dataDir.resolve("not-a-dir"), "x");

    assertThatThrownBy(() -> EmbeddedKafkaBroker.start(file, 0))
        .isInstanceOf(BrokerException.class)
        .hasMessageContaining("cannot use data directory " + file.toAbsolutePath());
  }

  @Test
  void shouldRefuseAPortThatIsTaken() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      assertThatThrownBy(() -> EmbeddedKafkaBroker.start(dataDir, taken.getLocalPort()))
          .isInstanceOf(BrokerException.class)
          .hasMessageContaining("port " + taken.getLocalPort())
          .hasMessageContaining("already in use")
          .hasMessageContaining("port 0");
    }
  }

  @Test
  void shouldRejectAnOutOfRangePort() {
    assertThatThrownBy(() -> EmbeddedKafkaBroker.start(dataDir, 70_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("70000");
  }

  @Test
  void shouldRunWithABrokerSettingGivenAsASystemPropertyAndRefuseOneItManages() throws Exception {
    String property = EmbeddedKafkaBroker.OVERRIDE_PREFIX + "log.cleaner.dedupe.buffer.size";
    System.setProperty(property, "33554432");
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir, 0);
        Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER, "1");
      ConfigEntry e = admin.describeConfigs(List.of(node)).all().get().get(node).get("log.cleaner.dedupe.buffer.size");
      assertThat(e.value()).as("the setting the broker runs with").isEqualTo("33554432");
    } finally {
      System.clearProperty(property);
    }

    String managed = EmbeddedKafkaBroker.OVERRIDE_PREFIX + "log.dirs";
    System.setProperty(managed, "/elsewhere");
    try {
      assertThatThrownBy(() -> EmbeddedKafkaBroker.start(dataDir, 0)).isInstanceOf(BrokerException.class)
          .hasMessageContaining("-D" + managed).hasMessageContaining("manages itself").hasMessageContaining("Fix:");
    } finally {
      System.clearProperty(managed);
    }
  }

  private static KafkaProducer<String, String> transactionalProducer(String bootstrap) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-broker-it",
        ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000),
        new StringSerializer(), new StringSerializer());
  }

  private static void sendInTransaction(KafkaProducer<String, String> producer, List<String> values,
      boolean commit) {
    producer.beginTransaction();
    for (String v : values) {
      producer.send(new ProducerRecord<>("customers.changes", "k", v));
    }
    if (commit) {
      producer.commitTransaction();
    } else {
      producer.flush();
      producer.abortTransaction();
    }
  }

  /** Reads partition 0 of the changes topic from the start up to its end offset. */
  private static List<String> readAll(String bootstrap, String isolation) {
    TopicPartition tp = new TopicPartition("customers.changes", 0);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation),
        new StringDeserializer(), new StringDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      List<String> values = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (consumer.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
      }
      return values;
    }
  }

  private static String cleanupPolicy(String bootstrap, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      ConfigEntry e = admin.describeConfigs(List.of(r)).all().get().get(r).get("cleanup.policy");
      return e.value();
    }
  }

  private static Set<String> nonDaemonThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !t.isDaemon())
        .map(t -> t.getName() + "#" + t.getId())
        .collect(Collectors.toSet());
  }

  /** Non-daemon threads that were not there before, given a few seconds to end. */
  private static Set<String> strayThreads(Set<String> before) throws InterruptedException {
    Set<String> stray = Set.of();
    for (int i = 0; i < 50; i++) {
      stray = nonDaemonThreads().stream().filter(t -> !before.contains(t)).collect(Collectors.toSet());
      if (stray.isEmpty()) {
        break;
      }
      Thread.sleep(100);
    }
    return stray;
  }
}
