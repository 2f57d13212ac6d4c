package io.dimstream.compactor;

import io.dimstream.spec.DimensionSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The Kafka consumer a compactor reads the versions topic with, and the wait for that topic to exist. */
final class VersionsConsumer {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(VersionsConsumer.class);
  /** How long the compactor waits for the versions topic to appear before it gives up. */
  static final Duration TOPIC_WAIT = Duration.ofSeconds(60);

  private VersionsConsumer() {}

  /**
   * A {@code read_committed} consumer of group {@code <dim>-compactor} without auto-commit.
   *
   * @param kafka  client properties (bootstrap.servers and security settings)
   * @param owner  identifies this service instance; a restarted instance reuses it
   * @param shared whether it joins the group for a share of the partitions (a merge-on-read table)
   */
  static KafkaConsumer<byte[], byte[]> open(DimensionSpec spec, Map<String, Object> kafka, String owner,
      int maxRecords, boolean shared) {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, spec.name() + "-compactor");
    // Static membership, as the stream threads have: an instance restarted after a crash takes back its partitions
    // at once instead of waiting for its dead member's session to expire (45 s by default, once per crash). A
    // clean stop does not leave the group either, so a short session moves a stopped instance's partitions soon.
    if (shared) {
      p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, spec.name() + "-compactor-"
          + Integer.toHexString(owner.hashCode()));
      p.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
      // Cooperative rebalancing: when an instance stops, pauses or joins, only the partitions that move are revoked;
      // the other compactors keep reading and committing theirs instead of all handing everything back at once.
      p.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
    }
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // only the topic provisioner creates the versions topic, compacted: a broker that creates topics on demand would
    // otherwise make it on the compactor's first metadata request, with the cluster's default delete policy
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Math.min(10_000, Math.max(500, maxRecords)));
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(p);
  }

  /**
   * The partitions of {@code topic}, in order, once it exists; empty when {@code running} turns false first.
   *
   * @throws CompactorException when the topic does not appear within {@link #TOPIC_WAIT} by {@code clock}
   */
  static List<TopicPartition> awaitPartitions(KafkaConsumer<byte[], byte[]> c, String topic, Clock clock,
      BooleanSupplier running) {
    long deadline = clock.millis() + TOPIC_WAIT.toMillis();
    while (running.getAsBoolean()) {
      List<PartitionInfo> infos;
      try {
        infos = c.partitionsFor(topic, Duration.ofSeconds(10));
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        // The brokers do not answer (a network cut, a cluster restart): the topic is not known to be missing, so the
        // compactor waits for them as the service's start does, instead of stopping the whole service.
        LOG.warn("The compactor cannot reach the brokers to read the partitions of {} ({}); trying again", topic,
            e.getMessage());
        deadline = clock.millis() + TOPIC_WAIT.toMillis();
        continue;
      }
      if (infos != null && !infos.isEmpty()) {
        return infos.stream().map(i -> new TopicPartition(topic, i.partition()))
            .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
      }
      if (clock.millis() > deadline) {
        throw CompactorErrors.missingTopic(topic, TOPIC_WAIT);
      }
      sleep(500);
    }
    return List.of();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
