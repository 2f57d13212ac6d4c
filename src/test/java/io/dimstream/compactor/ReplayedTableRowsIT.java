package io.dimstream.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionJson;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.topology.TableVersionRecords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A takeover replays the table's rows to a versions topic that does not hold them, marked as from the table: the
 * compactor reads past them without applying them, and applies the records around them. Real components: the
 * embedded broker, a Delta table on disk read back with its own reader.
 */
class ReplayedTableRowsIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  private final List<Compactor> compactors = new ArrayList<>();

  @AfterEach
  void stopCompactors() {
    compactors.forEach(c -> c.stop(Duration.ofSeconds(30)));
  }

  @Test
  void shouldSkipRowsReplayedFromTheTableAndApplyTheRecordsAroundThem() throws Exception {
    DimensionSpec spec = ZombieCompactorIT.compactorSpec(dir, "replayed");
    String topic = spec.topics().versions();
    try (Admin admin = Admin.create(KAFKA.clientProperties())) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    List<Version> before = versions(1, 3);
    List<Version> replayed = versions(101, 4); // rows a table holds elsewhere: applied, they would show up here
    List<Version> after = versions(201, 2);
    TableVersionRecords replay = new TableVersionRecords(spec, 1);
    VersionJson json = new VersionJson(spec);
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    before.forEach(v -> records.add(open(json, topic, v)));
    replayed.forEach(v -> records.add(replay.of(v).toSend(topic)));
    after.forEach(v -> records.add(open(json, topic, v)));
    Map<String, Object> props = KAFKA.clientProperties();
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (ProducerRecord<byte[], byte[]> r : records) {
        producer.send(r).get();
      }
    }

    Compactor c = start(spec);
    String appId = new VersionsTopicIdentity(spec.name(), topic,
        VersionsTopicIdentity.topicId(KAFKA.clientProperties(), topic)).appId(0);
    assertThat(CatchUp.await(() -> table(spec).txnVersion(appId) >= records.size() - 1, Duration.ofMinutes(1)))
        .as("the table records the topic's last offset").isTrue();
    assertThat(c.stop(Duration.ofSeconds(30))).isTrue();

    assertThat(rows(spec)).as("the records around the replayed rows, and none of these")
        .containsExactlyElementsOf(Stream.concat(before.stream(), after.stream()).toList());
    assertThat(c.recordsApplied()).as("records read, the replayed ones among them").isEqualTo(records.size());
  }

  private static ProducerRecord<byte[], byte[]> open(VersionJson json, String topic, Version v) {
    return new ProducerRecord<>(topic, 0, json.encodeKey(v.key(), v.validFrom()), json.encodeValue(v, ChangeKind.OPEN));
  }

  private static List<Version> versions(long firstId, int count) {
    return CompactorTestSupport.openVersions(firstId, count);
  }

  private Compactor start(DimensionSpec spec) {
    Compactor c = CompactorTestSupport.start(spec, KAFKA.clientProperties(), "replayed-it");
    compactors.add(c);
    return c;
  }

  private static DeltaTable table(DimensionSpec spec) {
    return CompactorTestSupport.table(spec);
  }

  private static List<Version> rows(DimensionSpec spec) {
    return CompactorTestSupport.rows(spec);
  }
}
