package io.dimstream.service;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.topology.DimensionTopology;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Decides when a running dimension has caught up with its input: the topology has consumed and committed every
 * record of its source topics, and the table records, for every versions-topic partition, the offset of that
 * partition's last record.
 */
public final class CatchUp {
  private CatchUp() {}

  /**
   * Whether the Streams application has committed offsets at the end of the changes topic and, unless the spec
   * declares it keyed, the repartition topic.
   */
  public static boolean streamsCaughtUp(Map<String, Object> kafka, DimensionSpec spec, String applicationId) {
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      return streamsCaughtUp(admin, spec, applicationId);
    }
  }

  /**
   * As {@link #streamsCaughtUp(Map, DimensionSpec, String)} with the caller's admin client, for a caller that polls
   * often: a new client per check costs the broker a connection and its metadata requests each time.
   */
  public static boolean streamsCaughtUp(Admin admin, DimensionSpec spec, String applicationId) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(applicationId)
          .partitionsToOffsetAndMetadata().get();
      String repartition = applicationId + "-" + DimensionTopology.repartitionName(spec) + "-repartition";
      // a keyed changes topic is read without the repartition hop, so its topic does not exist
      List<String> sources = spec.topics().changesKeyed() ? List.of(spec.topics().changes())
          : List.of(spec.topics().changes(), repartition);
      for (var e : committedEnds(admin, sources).entrySet()) {
        long end = e.getValue();
        OffsetAndMetadata c = committed.get(e.getKey());
        if (end > 0 && (c == null || c.offset() < end)) {
          return false;
        }
      }
      return true;
    } catch (Exception e) {
      return false; // topics or group not there yet: not caught up
    }
  }

  /**
   * The read_committed end offset (the last stable offset) of every partition of {@code topics}: what a
   * read_committed reader, or a consumer group's committed offsets, must reach to have everything committed now.
   */
  public static Map<TopicPartition, Long> committedEnds(Admin admin, List<String> topics)
      throws InterruptedException, java.util.concurrent.ExecutionException {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
      d.partitions().forEach(p -> request.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
    }
    Map<TopicPartition, Long> ends = new HashMap<>();
    admin.listOffsets(request, new org.apache.kafka.clients.admin.ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
        .all().get().forEach((tp, info) -> ends.put(tp, info.offset()));
    return ends;
  }

  /** Whether the table records every versions-topic record that exists now. */
  public static boolean tableCaughtUp(Map<String, Object> kafka, DimensionSpec spec, DeltaTable table) {
    TopicReader.Contents versions = TopicReader.readAll(kafka, spec.topics().versions(), false);
    io.dimstream.compactor.VersionsTopicIdentity identity;
    try {
      identity = new io.dimstream.compactor.VersionsTopicIdentity(spec.name(), spec.topics().versions(),
          io.dimstream.compactor.VersionsTopicIdentity.topicId(kafka, spec.topics().versions()));
    } catch (io.dimstream.compactor.CompactorException e) {
      return false; // the topic is not there (yet): nothing is caught up
    }
    for (var e : versions.lastOffsets().entrySet()) {
      if (table.txnVersion(identity.appId(e.getKey())) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Polls {@code condition} every 250 ms until it holds or {@code timeout} passes. */
  public static boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(250);
    }
    return condition.getAsBoolean();
  }
}
