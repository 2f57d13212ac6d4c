package io.dimstream.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionJson;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.service.CatchUp;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A versions topic deleted and created again (a replaced cluster, a lost broker data directory) starts its offsets
 * anew: the offsets a table recorded for the earlier topic must not make the compactor skip records of the new one.
 * Real components: the embedded broker, a Delta table on disk read back with its own reader.
 */
class VersionsTopicIncarnationIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final Duration WAIT = Duration.ofMinutes(1);

  @TempDir
  Path dir;

  private final List<Compactor> compactors = new ArrayList<>();

  @AfterEach
  void stopCompactors() {
    compactors.forEach(c -> c.stop(Duration.ofSeconds(30)));
  }

  @Test
  void shouldApplyEveryRecordOfARecreatedTopicThoughItsOffsetsAreBelowTheTableOnes() throws Exception {
    DimensionSpec spec = spec("recreated");
    String topic = spec.topics().versions();
    createTopic(topic);
    List<Version> first = versions(1, 10);
    produce(spec, first);
    Uuid firstId = VersionsTopicIdentity.topicId(KAFKA.clientProperties(), topic);
    VersionsTopicIdentity before = new VersionsTopicIdentity(spec.name(), topic, firstId);
    Compactor one = start(spec);
    awaitRecorded(spec, before.appId(0), 9);
    assertThat(one.stop(Duration.ofSeconds(30))).isTrue();

    recreateTopic(topic);
    Uuid secondId = VersionsTopicIdentity.topicId(KAFKA.clientProperties(), topic);
    assertThat(secondId).as("the topic's new incarnation").isNotEqualTo(firstId);
    List<Version> second = versions(101, 4); // offsets 0 to 3, all below the 9 the table records
    produce(spec, second);
    VersionsTopicIdentity after = new VersionsTopicIdentity(spec.name(), topic, secondId);
    Compactor two = start(spec);
    awaitRecorded(spec, after.appId(0), 3);
    assertThat(two.stop(Duration.ofSeconds(30))).isTrue();

    assertThat(rows(spec)).as("the versions of both topics").containsExactlyElementsOf(concat(first, second));
    assertThat(table(spec).latest().txnVersions()).as("the offsets of each incarnation")
        .containsEntry(before.appId(0), 9L).containsEntry(after.appId(0), 3L);
    assertThat(two.recordsApplied()).as("records the second compactor applied").isEqualTo(4);
  }

  @Test
  void shouldReadFromTheBeginningAPartitionWhoseLegacyOffsetIsPastItsEnd() throws Exception {
    DimensionSpec spec = spec("legacy_past_end");
    String topic = spec.topics().versions();
    createTopic(topic);
    List<Version> records = versions(1, 3); // offsets 0 to 2
    produce(spec, records);
    // a table the previous release wrote from an earlier topic of that name, which had reached offset 7
    DeltaTable previous = Compactor.openTable(spec);
    previous.newCommit(Operation.MERGE).txns(Map.of(VersionsTopicIdentity.legacyAppId(spec.name(), 0), 7L))
        .apply(List.of());
    VersionsTopicIdentity identity = new VersionsTopicIdentity(spec.name(), topic,
        VersionsTopicIdentity.topicId(KAFKA.clientProperties(), topic));
    assertThat(VersionsTopicIdentity.tableFollows(identity, previous.latest(), Map.of(0, 3L))).isFalse();

    Compactor c = start(spec);
    awaitRecorded(spec, identity.appId(0), 2);
    assertThat(c.stop(Duration.ofSeconds(30))).isTrue();

    assertThat(rows(spec)).as("every record of the topic").containsExactlyElementsOf(records);
    assertThat(c.recordsApplied()).isEqualTo(3);
  }

  @Test
  void shouldAdoptALegacyOffsetBelowThePartitionsEndAndApplyNoRecordBeforeItAgain() throws Exception {
    DimensionSpec spec = spec("legacy_below_end");
    String topic = spec.topics().versions();
    createTopic(topic);
    List<Version> records = versions(1, 6); // offsets 0 to 5
    produce(spec, records);
    // The previous release applied offsets 0 to 2. The version of offset 2 is not in the table (as if deleted since):
    // were the legacy offset not adopted, reading the partition again would bring it back.
    DeltaTable previous = Compactor.openTable(spec);
    previous.newCommit(Operation.MERGE).txns(Map.of(VersionsTopicIdentity.legacyAppId(spec.name(), 0), 2L))
        .apply(List.of(open(records.get(0)), open(records.get(1))));
    VersionsTopicIdentity identity = new VersionsTopicIdentity(spec.name(), topic,
        VersionsTopicIdentity.topicId(KAFKA.clientProperties(), topic));
    assertThat(VersionsTopicIdentity.tableFollows(identity, previous.latest(), Map.of(0, 6L))).isTrue();

    Compactor c = start(spec);
    awaitRecorded(spec, identity.appId(0), 5);
    assertThat(c.stop(Duration.ofSeconds(30))).isTrue();

    assertThat(rows(spec)).as("the table's versions and those after its offset")
        .containsExactly(records.get(0), records.get(1), records.get(3), records.get(4), records.get(5));
    assertThat(c.recordsApplied()).as("records read after the adopted offset").isEqualTo(3);
    assertThat(table(spec).latest().txnVersions()).containsEntry(identity.appId(0), 5L);
    assertThat(VersionsTopicIdentity.tableFollows(identity, table(spec).latest(), Map.of(0, 6L))).isTrue();
  }

  private DimensionSpec spec(String name) throws Exception {
    return ZombieCompactorIT.compactorSpec(dir, name);
  }

  private static void createTopic(String topic) throws Exception {
    try (Admin admin = Admin.create(KAFKA.clientProperties())) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
  }

  /** Deletes the topic and creates it again once the broker has let go of the old one. */
  private static void recreateTopic(String topic) throws Exception {
    try (Admin admin = Admin.create(KAFKA.clientProperties())) {
      admin.deleteTopics(List.of(topic)).all().get();
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (true) {
        try {
          admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
          return;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException) || System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(200);
        }
      }
    }
  }

  private static void produce(DimensionSpec spec, List<Version> versions) throws Exception {
    VersionJson json = new VersionJson(spec);
    Map<String, Object> props = KAFKA.clientProperties();
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (Version v : versions) {
        producer.send(new ProducerRecord<>(spec.topics().versions(), 0, json.encodeKey(v.key(), v.validFrom()),
            json.encodeValue(v, ChangeKind.OPEN))).get();
      }
    }
  }

  private static List<Version> versions(long firstId, int count) {
    return CompactorTestSupport.openVersions(firstId, count);
  }

  private static VersionChange open(Version v) {
    return new VersionChange.Upsert(v, ChangeKind.OPEN);
  }

  private static List<Version> concat(List<Version> a, List<Version> b) {
    return Stream.concat(a.stream(), b.stream()).toList();
  }

  private Compactor start(DimensionSpec spec) {
    Compactor c = CompactorTestSupport.start(spec, KAFKA.clientProperties(), "incarnation-it");
    compactors.add(c);
    return c;
  }

  private static DeltaTable table(DimensionSpec spec) {
    return CompactorTestSupport.table(spec);
  }

  private static void awaitRecorded(DimensionSpec spec, String appId, long offset) throws InterruptedException {
    assertThat(CatchUp.await(() -> table(spec).txnVersion(appId) >= offset, WAIT))
        .as("the table records offset %d as %s", offset, appId).isTrue();
  }

  private static List<Version> rows(DimensionSpec spec) {
    return CompactorTestSupport.rows(spec);
  }
}
