package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.change.RejectReason;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code topics.changes_keyed_by_business_key: true} on a real broker with two partitions: {@code produce} keys and
 * partitions every record as Kafka's own partitioner would, the service applies them without a repartition topic,
 * the table read back by Delta Kernel is the reference fold, and one record sent to the wrong partition lands in the
 * dead-letter topic as {@code wrong-partition} without changing its key's history; a streamed snapshot's markers end
 * it in each partition's own task.
 */
class KeyedChangesIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final String DAY1 = "2026-01-01T00:00:00Z";
  private static final String DAY2 = "2026-01-02T00:00:00Z";

  @TempDir
  Path dir;

  @Test
  void shouldApplyAKeyedChangesTopicWithoutRepartitionAndRejectAMisplacedRecord() throws Exception {
    DimensionSpec spec = spec("customers_keyed");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 20_261_201L).keys(150).events(1_500)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Path input = dir.resolve("changes.jsonl");
    stream.writeJsonLines(input);
    // a newer change of one generated key, sent keyed as it should be but to the partition its key is not in
    Object id = stream.events().get(0).key().values().get(0);
    byte[] keyBytes = ("[" + id + "]").getBytes(StandardCharsets.UTF_8);
    int wrong = 1 - BuiltInPartitioner.partitionForKey(keyBytes, 2);
    String misplaced = "{\"customer_id\": " + id + ", \"name\": \"Moved\", \"email\": \"m@example.com\", "
        + "\"city\": \"Mars\", \"tier\": \"gold\", \"updated_at\": \"2099-01-01T00:00:00Z\", \"op\": \"u\"}";

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, input, service.kafka())).isEqualTo(stream.jsonLines().size());
      try (KafkaProducer<byte[], byte[]> producer = producer(service.kafka())) {
        producer.send(new ProducerRecord<>(spec.topics().changes(), wrong, keyBytes,
            misplaced.getBytes(StandardCharsets.UTF_8))).get();
      }
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec,
          "dimstream-" + spec.name()) && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()),
          Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();

      List<ConsumerRecord<byte[], byte[]>> changes = TopicReader.readAll(service.kafka(), spec.topics().changes(), true)
          .kept();
      assertThat(changes).hasSize(stream.jsonLines().size() + 1);
      assertThat(changes).filteredOn(r -> !new String(r.value(), StandardCharsets.UTF_8).equals(misplaced))
          .allSatisfy(r -> assertThat(r.partition()).isEqualTo(BuiltInPartitioner.partitionForKey(r.key(), 2)))
          .extracting(ConsumerRecord::partition).contains(0, 1);

      List<ConsumerRecord<byte[], byte[]>> dead = TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept();
      assertThat(dead).extracting(r -> new String(r.value(), StandardCharsets.UTF_8)).containsExactly(misplaced);
      assertThat(dead).extracting(r -> new String(r.headers().lastHeader("dimstream.error").value(),
          StandardCharsets.UTF_8)).containsExactly(RejectReason.WRONG_PARTITION);
      try (Admin admin = Admin.create(new HashMap<>(service.kafka()))) {
        assertThat(admin.listTopics().names().get()).noneMatch(t -> t.contains("repartition"));
      }
    }

    List<Version> table = KernelReader.latest(dir.resolve("table"), spec);
    assertThat(EndToEndIT.sorted(table)).containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
  }

  @Test
  void shouldCloseTheKeysAStreamedSnapshotLeftOutWithoutRepartition() throws Exception {
    DimensionSpec spec = spec("customers_keyed_snapshot");
    List<String> day1 = new ArrayList<>();
    List<String> day2 = new ArrayList<>();
    for (int id = 1; id <= 30; id++) {
      day1.add(row(id, "Oslo", DAY1));
      if (id <= 20) {
        day2.add(row(id, id <= 5 ? "Rome" : "Oslo", null)); // 1..5 moved, 6..20 unchanged, 21..30 left out
      }
    }
    Path day1File = Files.write(dir.resolve("day1.jsonl"), day1);
    Path day2File = Files.write(dir.resolve("day2.jsonl"), day2);

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, day1File, service.kafka())).isEqualTo(30);
      assertThat(ProduceCommand.produce(spec, day2File, service.kafka(), new SnapshotProduce(spec, DAY2)))
          .isEqualTo(20);
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec,
          "dimstream-" + spec.name()) && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()),
          Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();
      assertThat(TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept()).isEmpty();
    }

    List<Version> table = KernelReader.latest(dir.resolve("table"), spec);
    assertThat(table.stream().filter(Version::isCurrent).map(v -> (Long) v.key().values().get(0)).sorted())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 20).boxed().toList());
    assertThat(table).filteredOn(v -> !v.isCurrent())
        .extracting(v -> Instant.EPOCH.plus(v.validTo().first(), ChronoUnit.MICROS).toString())
        .hasSize(15).containsOnly(DAY2); // 1..5 closed by their new row, 21..30 by the end of the snapshot
  }

  private DimensionSpec spec(String name) throws java.io.IOException {
    return ExampleSpec.customers(dir, name, "  partitions: 2\n", "topics: {changes_keyed_by_business_key: true}\n");
  }

  private static String row(long id, String city, String at) {
    return "{\"customer_id\": " + id + ", \"name\": \"N" + id + "\", \"email\": \"c" + id + "@example.com\", "
        + "\"city\": \"" + city + "\", \"tier\": \"gold\"" + (at == null ? "" : ", \"updated_at\": \"" + at + "\"")
        + "}";
  }

  private static KafkaProducer<byte[], byte[]> producer(Map<String, Object> kafka) {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new KafkaProducer<>(p);
  }
}
