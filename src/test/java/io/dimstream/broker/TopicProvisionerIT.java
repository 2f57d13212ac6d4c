package io.dimstream.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.ServiceSettings;
import io.dimstream.spec.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TopicProvisionerIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static Admin admin;

  @BeforeAll
  static void openAdmin() {
    admin = Admin.create(KAFKA.clientProperties());
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  @Test
  void shouldCreateMissingTopicsWithTheSpecsPartitionsAndACompactedVersionsTopic() throws Exception {
    DimensionSpec spec = spec("products", 3);

    List<String> created = TopicProvisioner.ensure(KAFKA.clientProperties(), spec);

    assertThat(created).containsExactly("products.changes", "products.versions", "products.dlq");
    Map<String, TopicDescription> topics = eventually(() -> admin.describeTopics(created).allTopicNames().get());
    assertThat(topics.values()).allSatisfy(t -> {
      assertThat(t.partitions()).hasSize(3);
      assertThat(t.partitions()).allSatisfy(p -> assertThat(p.replicas()).hasSize(1));
    });
    assertThat(cleanupPolicy("products.versions")).isEqualTo("compact");
    assertThat(cleanupPolicy("products.changes")).isEqualTo("delete");
    assertThat(cleanupPolicy("products.dlq")).isEqualTo("delete");
  }

  @Test
  void shouldCreateOnlyWhatIsMissingAndKeepExistingTopicsAsTheyAre() throws Exception {
    admin.createTopics(List.of(new NewTopic("stores.changes", 2, (short) 1))).all().get();
    DimensionSpec spec = spec("stores", 4);

    assertThat(TopicProvisioner.ensure(KAFKA.clientProperties(), spec))
        .containsExactly("stores.versions", "stores.dlq");
    assertThat(TopicProvisioner.ensure(KAFKA.clientProperties(), spec)).isEmpty();
    assertThat(eventually(() -> admin.describeTopics(List.of("stores.changes")).allTopicNames().get())
        .get("stores.changes").partitions()).hasSize(2);
  }

  @Test
  void shouldRefuseAnExistingVersionsTopicThatIsNotCompacted() throws Exception {
    admin.createTopics(List.of(new NewTopic("orders.versions", 1, (short) 1)
        .configs(Map.of("cleanup.policy", "delete")))).all().get();

    assertThatThrownBy(() -> TopicProvisioner.ensure(KAFKA.clientProperties(), spec("orders", 1)))
        .isInstanceOf(BrokerException.class)
        .hasMessageContaining("'orders.versions'")
        .hasMessageContaining("cleanup.policy=delete")
        .hasMessageContaining("--add-config cleanup.policy=compact");
  }

  @Test
  void shouldAcceptAVersionsTopicThatIsCompactedAndDeleted() throws Exception {
    admin.createTopics(List.of(new NewTopic("regions.versions", 1, (short) 1)
        .configs(Map.of("cleanup.policy", "compact,delete")))).all().get();

    assertThat(TopicProvisioner.ensure(KAFKA.clientProperties(), spec("regions", 1)))
        .containsExactly("regions.changes", "regions.dlq");
  }

  @Test
  void shouldReportThePartitionCountTheChangesTopicReallyHas() throws Exception {
    admin.createTopics(List.of(new NewTopic("stock.changes", 3, (short) 1))).all().get();

    assertThat(TopicProvisioner.provision(KAFKA.clientProperties(), spec("stock", 1)).changesPartitions())
        .as("the existing topic's count, not service.partitions").isEqualTo(3);
    assertThat(TopicProvisioner.provision(KAFKA.clientProperties(), spec("fresh", 2)).changesPartitions())
        .as("a topic the service created").isEqualTo(2);
  }

  @Test
  void shouldTakeTheChangesTopicsLimitAndMakeTheOutputTopicsTakeWhatTheServiceWrites() throws Exception {
    admin.createTopics(List.of(new NewTopic("parts.changes", 1, (short) 1)
            .configs(Map.of("max.message.bytes", "2500000")),
        new NewTopic("parts.dlq", 1, (short) 1).configs(Map.of("max.message.bytes", "100000")))).all().get();

    TopicProvisioner.Provisioned p = TopicProvisioner.provision(KAFKA.clientProperties(), spec("parts", 1));

    assertThat(p.created()).containsExactly("parts.versions");
    assertThat(p.sizes().maxRecordBytes()).isEqualTo(2_500_000);
    // a DLQ copy of an accepted record and a version record must both fit: the existing DLQ topic was raised
    assertThat(maxMessageBytes("parts.dlq")).isGreaterThanOrEqualTo(2_500_000);
    assertThat(maxMessageBytes("parts.versions")).isGreaterThanOrEqualTo(2_500_000);
  }

  @Test
  void shouldPreferTheSpecsRecordLimitOverTheTopics() {
    DimensionSpec spec = spec("tools", 1);
    spec = spec.withService(spec.service().withMaxRecordBytes(50_000));

    assertThat(TopicProvisioner.provision(KAFKA.clientProperties(), spec).sizes().maxRecordBytes())
        .isEqualTo(50_000);
  }

  @Test
  void shouldUseTheTopicNamesOfTheSpec() throws Exception {
    DimensionSpec spec = DimensionSpec.builder("accounts")
        .column("id", "long").column("updated_at", "timestamp").key("id").sequence("updated_at")
        .topics(new Topics("cdc.accounts", "dim.accounts.history", "dim.accounts.rejected"))
        .build();

    assertThat(TopicProvisioner.ensure(KAFKA.clientProperties(), spec))
        .containsExactly("cdc.accounts", "dim.accounts.history", "dim.accounts.rejected");
    assertThat(cleanupPolicy("dim.accounts.history")).isEqualTo("compact");
  }

  @Test
  void shouldSayWhichClusterCannotBeReached() {
    String nowhere = "127.0.0.1:" + LocalPorts.free();
    Map<String, Object> props = Map.of("bootstrap.servers", nowhere, "default.api.timeout.ms", 1500,
        "request.timeout.ms", 1000);

    assertThatThrownBy(() -> TopicProvisioner.ensure(props, spec("nowhere", 1)))
        .isInstanceOf(BrokerException.class)
        .hasMessageContaining("Cannot reach Kafka at " + nowhere)
        .hasMessageContaining("service.kafka");
  }

  private static DimensionSpec spec(String name, int partitions) {
    ServiceSettings defaults = ServiceSettings.defaults(name);
    ServiceSettings service = new ServiceSettings(defaults.dataDir(), defaults.tablePath().localPath(), defaults.kafka(),
        defaults.compactionInterval(), defaults.compactionMaxRecords(), defaults.httpHost(), defaults.httpPort(),
        partitions);
    return DimensionSpec.builder(name)
        .column("id", "long").column("name", "string").column("updated_at", "timestamp")
        .key("id").sequence("updated_at").service(service).build();
  }

  private static int maxMessageBytes(String topic) {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return Integer.parseInt(eventually(() -> admin.describeConfigs(List.of(r)).all().get().get(r)
        .get("max.message.bytes").value()));
  }

  private static String cleanupPolicy(String topic) {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return eventually(() -> admin.describeConfigs(List.of(r)).all().get().get(r).get("cleanup.policy").value());
  }

  /** A just-created topic may take a moment to be known to the broker that answers. */
  private static <T> T eventually(Callable<T> call) {
    return await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
        .until(call, Objects::nonNull);
  }
}
