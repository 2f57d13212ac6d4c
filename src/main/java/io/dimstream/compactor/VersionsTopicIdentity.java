package io.dimstream.compactor;

import io.dimstream.table.Snapshot;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * One incarnation of a dimension's versions topic, and how the table's {@code txn} markers name it: appId
 * {@code <dim>-versions-<topicId>-<partition>}, the topic id being Kafka's ({@link Uuid#toString()}). A topic deleted
 * and created again (a replaced cluster, a lost broker data directory) has a new id, so offsets the table recorded
 * for the old one are never taken for offsets of the new one.
 *
 * <p>Tables written before markers named the topic id carry the legacy form {@code <dim>-versions-<partition>}
 * ({@link #legacyAppId}); see {@link #tableFollows} for when those are taken as this topic's.
 */
public final class VersionsTopicIdentity {
  private final String dimension;
  private final String topic;
  private final Uuid topicId;

  /**
   * @param dimension the dimension's name, the first part of every appId
   * @param topic     the versions topic's name (for messages)
   * @param topicId   the versions topic's Kafka topic id ({@link #topicId(Admin, String)})
   */
  public VersionsTopicIdentity(String dimension, String topic, Uuid topicId) {
    this.dimension = Objects.requireNonNull(dimension, "dimension");
    this.topic = Objects.requireNonNull(topic, "topic");
    this.topicId = Objects.requireNonNull(topicId, "topicId");
  }

  /** How long a topic the cluster does not know yet is asked for again: one just created may not have reached it. */
  static final Duration NEW_TOPIC_WAIT = Duration.ofSeconds(10);

  private static void sleepBeforeRetry(String topic) {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CompactorErrors.topicIdUnknown(topic, e);
    }
  }

  /**
   * The topic id of {@code topic}, asked of the cluster with a client of {@code kafka}'s properties.
   *
   * @throws CompactorException when the topic does not exist, the cluster does not answer, or it keeps no topic id
   */
  public static Uuid topicId(Map<String, Object> kafka, String topic) {
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      return topicId(admin, topic);
    }
  }

  /**
   * The topic id of {@code topic}, asked with the caller's admin client.
   *
   * @throws CompactorException when the topic does not exist, the cluster does not answer, or it keeps no topic id
   */
  public static Uuid topicId(Admin admin, String topic) {
    Uuid id;
    long deadline = System.nanoTime() + NEW_TOPIC_WAIT.toNanos();
    while (true) {
      try {
        id = admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS).get(topic).topicId();
        break;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw CompactorErrors.topicIdUnknown(topic, e);
      } catch (ExecutionException e) {
        // a topic created a moment ago is unknown to a broker until the cluster's metadata reaches it
        if (e.getCause() instanceof UnknownTopicOrPartitionException && System.nanoTime() < deadline) {
          sleepBeforeRetry(topic);
          continue;
        }
        throw CompactorErrors.topicIdUnknown(topic, e.getCause() == null ? e : e.getCause());
      } catch (TimeoutException e) {
        throw CompactorErrors.topicIdUnknown(topic, e);
      }
    }
    if (id == null || Uuid.ZERO_UUID.equals(id)) {
      throw CompactorErrors.noTopicId(topic);
    }
    return id;
  }

  /** The appId of partition {@code partition}'s marker in the form of tables written before topic ids. */
  public static String legacyAppId(String dimension, int partition) {
    return legacyPrefix(dimension) + partition;
  }

  public String dimension() {
    return dimension;
  }

  public String topic() {
    return topic;
  }

  public Uuid topicId() {
    return topicId;
  }

  /** {@code <dim>-versions-<topicId>-}: what every marker of this incarnation starts with, the partition follows. */
  public String appIdPrefix() {
    return legacyPrefix(dimension) + topicId + "-";
  }

  /** {@code <dim>-versions-<topicId>-<partition>}: the appId of this incarnation's marker for {@code partition}. */
  public String appId(int partition) {
    return appIdPrefix() + partition;
  }

  /**
   * Whether the table recorded offsets of this topic incarnation, so that the compactor resumes at least one partition
   * right after an offset the table records rather than from the partition's beginning. True when {@code table}
   * holds a marker of this incarnation ({@link #appId}); or, on a table written before markers named the topic id
   * (it holds no marker of the form {@code <dim>-versions-<topicId>-<partition>} of any topic id), when it holds a
   * legacy marker ({@link #legacyAppId}) that can be this topic's: its partition's log end offset in
   * {@code endOffsets} is greater than the offset the marker records. False on a table that holds only markers of
   * other incarnations, legacy markers none of which can be this topic's, or no marker at all.
   *
   * @param identity   the versions topic as it is now
   * @param table      the table's snapshot whose markers are read
   * @param endOffsets partition to log end offset of the versions topic as it is now; a partition missing here has
   *                   no records
   */
  public static boolean tableFollows(VersionsTopicIdentity identity, Snapshot table, Map<Integer, Long> endOffsets) {
    Markers m = identity.markers(table.txnVersions());
    return !m.own.isEmpty() || !m.adoptable(endOffsets).isEmpty();
  }

  /** The table's markers of this dimension sorted by incarnation: this one's, others' (by id) and legacy ones. */
  Markers markers(Map<String, Long> txns) {
    Map<Integer, Long> own = new TreeMap<>();
    Set<String> others = new TreeSet<>();
    Map<Integer, Long> legacy = new TreeMap<>();
    String prefix = legacyPrefix(dimension);
    for (Map.Entry<String, Long> e : txns.entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        continue;
      }
      String rest = e.getKey().substring(prefix.length());
      Integer legacyPartition = partitionNumber(rest);
      if (legacyPartition != null) {
        legacy.put(legacyPartition, e.getValue());
        continue;
      }
      int dash = rest.lastIndexOf('-');
      Integer partition = dash > 0 ? partitionNumber(rest.substring(dash + 1)) : null;
      if (partition == null) {
        continue; // not a marker of the versions topic
      }
      String id = rest.substring(0, dash);
      if (id.equals(topicId.toString())) {
        own.put(partition, e.getValue());
      } else {
        others.add(id);
      }
    }
    return new Markers(own, others, legacy);
  }

  private static String legacyPrefix(String dimension) {
    return dimension + "-versions-";
  }

  private static Integer partitionNumber(String s) {
    if (s.isEmpty() || s.length() > 9) {
      return null;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!Character.isDigit(s.charAt(i))) {
        return null;
      }
    }
    return Integer.parseInt(s);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VersionsTopicIdentity other && dimension.equals(other.dimension)
        && topic.equals(other.topic) && topicId.equals(other.topicId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(dimension, topic, topicId);
  }

  @Override
  public String toString() {
    return topic + " (topic id " + topicId + ")";
  }

  /**
   * A table's markers of one dimension: this incarnation's per partition, the ids of other incarnations, and the
   * legacy ones per partition.
   */
  record Markers(Map<Integer, Long> own, Set<String> others, Map<Integer, Long> legacy) {
    /** Whether the table was written only before markers named the topic id: legacy markers may be this topic's. */
    boolean legacyOnly() {
      return own.isEmpty() && others.isEmpty();
    }

    /** The legacy markers (partition to offset) that can be this topic's: each below its partition's end. */
    Map<Integer, Long> adoptable(Map<Integer, Long> endOffsets) {
      Map<Integer, Long> out = new TreeMap<>();
      if (legacyOnly()) {
        legacy.forEach((p, recorded) -> {
          if (endOffsets.getOrDefault(p, 0L) > recorded) {
            out.put(p, recorded);
          }
        });
      }
      return out;
    }
  }
}
