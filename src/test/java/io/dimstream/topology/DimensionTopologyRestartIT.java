package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.broker.TopicProvisioner;
import io.dimstream.codec.EventJson;
import io.dimstream.codec.VersionJson;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.ServiceSettings;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topology on a real (embedded) broker with exactly-once: stopped and started again on the same state
 * directory, it continues where it left off — no record re-emitted, late events spliced against the state of
 * before the restart. (TopologyTestDriver cannot show this: its close() deletes the state directory.)
 */
class DimensionTopologyRestartIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  static final DimensionSpec ITEMS = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("color", ColumnType.STRING).column("seq", ColumnType.LONG)
      .key("id").sequence("seq")
      .service(new ServiceSettings(Path.of("data"), Path.of("data/t"), Map.of(), Duration.ofSeconds(10), 1000,
          "127.0.0.1", 0, 3))
      .build();

  @TempDir
  Path stateDir;

  static String item(long id, String color, long seq) {
    return "{\"id\":" + id + ",\"color\":\"" + color + "\",\"seq\":" + seq + "}";
  }

  static ChangeEvent event(long id, String color, long seq) {
    return ChangeEvent.upsert(BusinessKey.of(id), Sequence.of(seq), List.of(color));
  }

  @Test
  void shouldContinueWhereItLeftOffAfterRestart() throws Exception {
    TopicProvisioner.ensure(KAFKA.clientProperties(), ITEMS);
    List<ChangeEvent> all = new ArrayList<>();
    List<ConsumerRecord<byte[], byte[]>> seen = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = producer(); KafkaConsumer<byte[], byte[]> versions = consumer()) {
      versions.subscribe(List.of(ITEMS.topics().versions()));

      try (KafkaStreams streams = start()) {
        send(producer, all, item(1, "red", 10), item(1, "blue", 30), item(2, "red", 10));
        seen.addAll(poll(versions, 4));
        streams.close(Duration.ofSeconds(30));
      }
      assertThat(kinds(seen)).containsExactly("open 1@10", "close 1@10", "open 1@30", "open 2@10");

      try (KafkaStreams streams = start()) {
        // a duplicate and a no-change update: nothing; then a late event that needs the stored events
        send(producer, all, item(1, "blue", 30), item(2, "red", 20), item(1, "green", 20), item(2, "pink", 40));
        List<ConsumerRecord<byte[], byte[]>> after = poll(versions, 4);
        seen.addAll(after);
        assertThat(kinds(after)).containsExactly("correct 1@10", "open 1@20", "close 2@10", "open 2@40");
        streams.close(Duration.ofSeconds(30));
      }
    }
    assertThat(applied(seen)).containsExactlyElementsOf(Scd2Fold.fold(ITEMS, all));
    EventJson keys = new EventJson(ITEMS);
    VersionJson json = new VersionJson(ITEMS);
    for (ConsumerRecord<byte[], byte[]> r : seen) {
      byte[] canonical = keys.keyBytes(json.decodeKey(r.key()).key());
      assertThat(r.partition()).isEqualTo(BusinessKeyPartitioner.partition(canonical, 3));
    }
  }

  private KafkaStreams start() {
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, ITEMS);
    Map<String, String> kafka = Map.of("bootstrap.servers", KAFKA.bootstrapServers(), "commit.interval.ms", "100",
        "num.stream.threads", "1");
    Properties props = DimensionTopology.config(ITEMS, kafka, stateDir);
    KafkaStreams streams = new KafkaStreams(builder.build(), props);
    streams.start();
    return streams;
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, List<ChangeEvent> all, String... values)
      throws Exception {
    for (String v : values) {
      producer.send(new ProducerRecord<>(ITEMS.topics().changes(), null, v.getBytes(StandardCharsets.UTF_8))).get();
      var n = new com.fasterxml.jackson.databind.ObjectMapper().readTree(v);
      all.add(event(n.get("id").asLong(), n.get("color").asText(), n.get("seq").asLong()));
    }
  }

  /**
   * Reads exactly {@code n} more version records (and checks that no more follow for a while), leaving out event
   * records: the event store's writes, which the compactor keeps beside the table.
   */
  private static List<ConsumerRecord<byte[], byte[]>> poll(KafkaConsumer<byte[], byte[]> consumer, int n) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    await().atMost(Duration.ofSeconds(90)).until(() -> {
      addVersions(consumer.poll(Duration.ofMillis(200)), out);
      return out.size() >= n;
    });
    addVersions(consumer.poll(Duration.ofSeconds(1)), out);
    assertThat(out).hasSize(n);
    return out;
  }

  private static void addVersions(Iterable<ConsumerRecord<byte[], byte[]>> records,
      List<ConsumerRecord<byte[], byte[]>> out) {
    for (ConsumerRecord<byte[], byte[]> r : records) {
      if (!EventRecordHeaders.isEvent(r.headers())) {
        out.add(r);
      }
    }
  }

  private static List<String> kinds(List<ConsumerRecord<byte[], byte[]>> records) {
    VersionJson json = new VersionJson(ITEMS);
    List<ConsumerRecord<byte[], byte[]>> byKey = new ArrayList<>(records);
    // records of one key are ordered (one partition); across keys, order by key for a stable assertion
    byKey.sort((a, b) -> BusinessKeys.ORDER.compare(json.decodeKey(a.key()).key(), json.decodeKey(b.key()).key()));
    return byKey.stream().map(r -> {
      VersionChange c = json.decodeChange(r.key(), r.value());
      return c.kind().wireName() + " " + c.key() + "@" + c.validFrom();
    }).toList();
  }

  private static List<Version> applied(List<ConsumerRecord<byte[], byte[]>> records) {
    VersionJson json = new VersionJson(ITEMS);
    VersionsById table = new VersionsById();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      table.apply(json.decodeChange(r.key(), r.value()));
    }
    return table.sorted();
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> p = KAFKA.clientProperties();
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> p = KAFKA.clientProperties();
    p.put("group.id", "restart-it");
    p.put("auto.offset.reset", "earliest");
    p.put("isolation.level", "read_committed");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
