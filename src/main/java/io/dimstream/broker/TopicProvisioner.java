package io.dimstream.broker;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.SizePolicy;
import io.dimstream.spec.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a dimension's topics when they are missing, on any Kafka cluster: {@code changes} and {@code dlq} with
 * the default cleanup policy, {@code versions} compacted. New topics get {@code service.partitions} partitions and
 * replication factor min(3, number of brokers); the versions and dead-letter topics get a {@code max.message.bytes}
 * that fits every record the service writes ({@link SizePolicy}). Existing topics are kept as they are, except
 * that an existing versions topic must be compacted and an output topic's too low limit is raised.
 */
public final class TopicProvisioner {
  private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);
  /**
   * How long each admin request may take before the cluster is reported unreachable, unless the admin properties
   * set {@code default.api.timeout.ms}.
   */
  public static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final short MAX_REPLICATION = 3;

  private TopicProvisioner() {}

  /**
   * Makes sure the changes, versions and dead-letter topics of {@code spec} exist, creating the missing ones; see
   * {@link #provision}.
   *
   * @return the names of the topics this call created, in the order changes, versions, dlq; empty if all existed
   * @throws BrokerException as {@link #provision}
   */
  public static List<String> ensure(Map<String, Object> adminProps, DimensionSpec spec) {
    return provision(adminProps, spec).created();
  }

  /**
   * Makes sure the changes, versions and dead-letter topics of {@code spec} exist, creating the missing ones, and
   * settles the dimension's {@link SizePolicy}: the spec's {@code service.max_record_bytes}, else the changes
   * topic's {@code max.message.bytes}. The versions and dead-letter topics are created with
   * {@code max.message.bytes} = {@link SizePolicy#outputLimit()}; an existing one with a lower limit is raised to
   * it, because a record the service cannot write would stop its partition. Safe to call from several instances
   * at once (a topic created concurrently counts as existing).
   *
   * @param adminProps Kafka admin client properties: {@code bootstrap.servers} and any security settings (for
   *                   example {@code spec.service().kafka()}); not modified
   * @throws BrokerException if the cluster cannot be reached within {@link #TIMEOUT} (or
   *                         {@code default.api.timeout.ms}), refuses a request, the existing versions topic is not
   *                         compacted, or an output topic's limit is too low and cannot be raised
   */
  public static Provisioned provision(Map<String, Object> adminProps, DimensionSpec spec) {
    Topics topics = spec.topics();
    Object bootstrap = adminProps.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
    Map<String, Object> props = new HashMap<>(adminProps);
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    Duration timeout = Duration.ofMillis(Long.parseLong(
        String.valueOf(props.get(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG))));
    Admin admin = Admin.create(props);
    try {
      Set<String> existing = get(admin.listTopics().names(), bootstrap, timeout, "list topics");
      int brokers = get(admin.describeCluster().nodes(), bootstrap, timeout, "describe the cluster").size();
      short replication = (short) Math.max(1, Math.min(MAX_REPLICATION, brokers));
      int partitions = spec.service().partitions();
      List<String> created = new ArrayList<>();
      if (!existing.contains(topics.changes())) {
        created.addAll(create(admin, List.of(new NewTopic(topics.changes(), partitions, replication)), bootstrap,
            timeout));
      }
      // The policy's default is the limit the changes topic really has, whoever created it.
      int changesLimit = maxMessageBytes(describe(admin, topics.changes(), bootstrap, timeout));
      SizePolicy policy = SizePolicy.of(spec.service(), changesLimit);
      if (policy.maxRecordBytes() > changesLimit) {
        LOG.warn("service.max_record_bytes of {} is {} bytes but topic {} refuses records over {} bytes "
            + "(max.message.bytes); raise the topic's limit to accept records that large", spec.name(),
            policy.maxRecordBytes(), topics.changes(), changesLimit);
      }
      String outputLimit = Integer.toString(policy.outputLimit());
      List<NewTopic> missing = new ArrayList<>();
      for (String name : List.of(topics.versions(), topics.dlq())) {
        if (!existing.contains(name)) {
          NewTopic topic = new NewTopic(name, partitions, replication);
          Map<String, String> configs = new HashMap<>();
          configs.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, outputLimit);
          if (name.equals(topics.versions())) {
            configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
          }
          topic.configs(configs);
          missing.add(topic);
        }
      }
      created.addAll(create(admin, missing, bootstrap, timeout));
      for (String name : List.of(topics.versions(), topics.dlq())) {
        if (!created.contains(name)) {
          Config config = describe(admin, name, bootstrap, timeout);
          if (name.equals(topics.versions())) {
            checkCompacted(config, name);
          }
          raiseLimit(admin, name, maxMessageBytes(config), policy, bootstrap, timeout);
        }
      }
      if (!created.isEmpty()) {
        LOG.info("Created topics {} ({} partitions, replication factor {}) on {}", created, partitions,
            replication, bootstrap);
      }
      LOG.info("Change records of {} up to {} bytes are applied, larger ones go to {} as too-large; the service "
          + "writes records up to {} bytes", spec.name(), policy.maxRecordBytes(), topics.dlq(), policy.outputLimit());
      int changesPartitions = get(admin.describeTopics(List.of(topics.changes())).allTopicNames(), bootstrap,
          timeout, "describe topic '" + topics.changes() + "'").get(topics.changes()).partitions().size();
      return new Provisioned(List.copyOf(created), policy, changesPartitions);
    } finally {
      admin.close(Duration.ofSeconds(5));
    }
  }

  /**
   * What {@link #provision} did and settled.
   *
   * @param changesPartitions the changes topic's partition count, as the cluster describes it now
   */
  public record Provisioned(List<String> created, SizePolicy sizes, int changesPartitions) {}

  private static void raiseLimit(Admin admin, String topic, int current, SizePolicy policy, Object bootstrap,
      Duration timeout) {
    if (current >= policy.outputLimit()) {
      return;
    }
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    AlterConfigOp op = new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
        Integer.toString(policy.outputLimit())), AlterConfigOp.OpType.SET);
    try {
      get(admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all(), bootstrap, timeout,
          "raise max.message.bytes of topic '" + topic + "'");
    } catch (BrokerException e) {
      throw BrokerErrors.outputLimitTooLow(topic, current, policy.maxRecordBytes(), policy.outputLimit(), e);
    }
    LOG.warn("Raised max.message.bytes of topic {} from {} to {} bytes so that every record the service writes "
        + "for change records up to {} bytes fits", topic, current, policy.outputLimit(), policy.maxRecordBytes());
  }

  private static int maxMessageBytes(Config config) {
    ConfigEntry entry = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
    if (entry == null || entry.value() == null) {
      return SizePolicy.KAFKA_DEFAULT_MAX_MESSAGE_BYTES;
    }
    return Integer.parseInt(entry.value().trim());
  }

  private static List<String> create(Admin admin, Collection<NewTopic> missing, Object bootstrap,
      Duration timeout) {
    if (missing.isEmpty()) {
      return List.of();
    }
    CreateTopicsResult result = admin.createTopics(missing);
    List<String> created = new ArrayList<>();
    for (NewTopic topic : missing) {
      try {
        get(result.values().get(topic.name()), bootstrap, timeout,
            "create topic '" + topic.name() + "'");
        created.add(topic.name());
      } catch (BrokerException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
        LOG.debug("Topic {} was created concurrently by another client", topic.name());
      }
    }
    return created;
  }

  private static Config describe(Admin admin, String topic, Object bootstrap, Duration timeout) {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Map<ConfigResource, Config> configs = null;
    // A topic created a moment ago (by this call or another client) may not be known to every broker yet.
    for (int attempt = 1; configs == null; attempt++) {
      try {
        configs = get(admin.describeConfigs(List.of(resource)).all(), bootstrap, timeout,
            "describe the configuration of topic '" + topic + "'");
      } catch (BrokerException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || attempt == 20) {
          throw e;
        }
        pause(Duration.ofMillis(250));
      }
    }
    return configs.get(resource);
  }

  private static void checkCompacted(Config config, String versions) {
    ConfigEntry policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
    String value = policy == null || policy.value() == null ? TopicConfig.CLEANUP_POLICY_DELETE : policy.value();
    List<String> policies = List.of(value.replace(" ", "").split(","));
    if (!policies.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
      throw BrokerErrors.versionsNotCompacted(versions, value);
    }
    if (policies.contains(TopicConfig.CLEANUP_POLICY_DELETE)) {
      LOG.warn("Topic {} has cleanup.policy={}: versions older than its retention are deleted even when they are "
          + "the latest of their key; use cleanup.policy=compact to keep the full history in the topic", versions,
          value);
    }
  }

  private static void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      throw BrokerErrors.interrupted("waiting for a new topic to be known", e);
    }
  }

  private static <T> T get(KafkaFuture<T> future, Object bootstrap, Duration timeout, String what) {
    try {
      // A little longer than the client's own timeout, so its more precise error wins.
      return future.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      throw BrokerErrors.interrupted("waiting for Kafka to " + what, e);
    } catch (TimeoutException e) {
      throw BrokerErrors.unreachable(bootstrap, timeout, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw BrokerErrors.unreachable(bootstrap, timeout, cause);
      }
      throw BrokerErrors.adminFailed(what, bootstrap, cause);
    }
  }
}
