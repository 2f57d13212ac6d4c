package io.dimstream.enrich.streams;

import io.dimstream.DimstreamException;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.spec.DimensionSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the topics of enrichments that are missing (facts, output compacted so it keeps the last record per fact
 * key, dead-letter) with the versions topic's partition count, and reads that count, which the facts repartition
 * must match. Run after the dimension's own topics exist.
 */
public final class EnrichmentTopics {
  private static final Logger LOG = LoggerFactory.getLogger(EnrichmentTopics.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private EnrichmentTopics() {}

  /**
   * @return the partition count of the dimension's versions topic
   * @throws DimstreamException when the cluster cannot be reached or refuses
   */
  public static int provision(Map<String, Object> adminProps, DimensionSpec dimension,
      List<EnrichmentSpec> enrichments) {
    try (Admin admin = Admin.create(new HashMap<>(adminProps))) {
      String versions = dimension.topics().versions();
      int partitions = get(admin.describeTopics(List.of(versions)).allTopicNames(), "describe " + versions)
          .get(versions).partitions().size();
      Set<String> existing = get(admin.listTopics().names(), "list topics");
      short replication = (short) Math.max(1, Math.min(3, get(admin.describeCluster().nodes(),
          "describe the cluster").size()));
      List<NewTopic> missing = new ArrayList<>();
      for (EnrichmentSpec e : enrichments) {
        for (String name : List.of(e.facts().topic(), e.outputTopic(), e.dlqTopic())) {
          if (!existing.contains(name) && missing.stream().noneMatch(t -> t.name().equals(name))) {
            NewTopic t = new NewTopic(name, partitions, replication);
            if (name.equals(e.outputTopic())) {
              t.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            }
            missing.add(t);
          }
        }
      }
      if (!missing.isEmpty()) {
        try {
          admin.createTopics(missing).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException ex) {
          if (!(ex.getCause() instanceof TopicExistsException)) {
            throw failed("create the enrichment topics " + missing.stream().map(NewTopic::name).toList(), ex);
          }
        } catch (InterruptedException | TimeoutException ex) {
          throw failed("create the enrichment topics", ex);
        }
        LOG.info("Created enrichment topics {} ({} partitions)", missing.stream().map(NewTopic::name).toList(),
            partitions);
      }
      return partitions;
    }
  }

  private static <T> T get(KafkaFuture<T> f, String what) {
    try {
      return f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | InterruptedException | TimeoutException e) {
      throw failed(what, e);
    }
  }

  private static DimstreamException failed(String what, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    return new DimstreamException("Cannot " + what + " for the enrichments: " + cause + ". Fix: check that Kafka "
        + "is reachable and that the service may create and describe topics", cause);
  }
}
