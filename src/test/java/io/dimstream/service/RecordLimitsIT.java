package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.KernelReader;
import io.dimstream.topology.EventRecordHeaders;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records at and around every size limit against a real broker: the service applies what its policy accepts,
 * dead-letters the rest with a reason, and the records after them still reach the table; a version record the
 * table cannot take stops only itself.
 */
class RecordLimitsIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  /** The example customers spec under {@code dir}, renamed, with extra {@code service:} lines. */
  DimensionSpec spec(String name, String serviceLines) throws Exception {
    return ExampleSpec.customers(dir, name, serviceLines);
  }

  /** A customer change of exactly {@code bytes} UTF-8 bytes, the name padded to that size. */
  static String customerOfSize(long id, int bytes) {
    return customer(id, nameOfSize(id, bytes));
  }

  static String nameOfSize(long id, int bytes) {
    return "n".repeat(bytes - customer(id, "").length());
  }

  static String customer(long id, String name) {
    return "{\"customer_id\":" + id + ",\"name\":\"" + name + "\",\"email\":\"c" + id + "@example.com\","
        + "\"city\":\"Oslo\",\"tier\":\"gold\",\"updated_at\":\"2026-01-01T00:00:00Z\",\"op\":\"u\"}";
  }

  @Test
  void shouldApplyRecordsUpToTheSpecsLimitAndDeadLetterLargerOnesAsTooLarge() throws Exception {
    DimensionSpec spec = spec("limited", "  max_record_bytes: 200000\n");
    String under = customerOfSize(1, 199_990);
    String over = customerOfSize(2, 200_010);
    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers());
        KafkaProducer<byte[], byte[]> producer = producer(4_000_000)) {
      send(producer, spec.topics().changes(), null, under);
      send(producer, spec.topics().changes(), null, over);
      send(producer, spec.topics().changes(), null, customer(3, "after"));
      awaitTable(service);

      List<ConsumerRecord<byte[], byte[]>> dead = dlq(service);
      assertThat(dead).hasSize(1);
      assertThat(header(dead.get(0), "dimstream.error")).isEqualTo("too-large");
      assertThat(header(dead.get(0), "dimstream.record.bytes")).isEqualTo("200010");
      assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8)).isEqualTo(over);
      assertThat(names(spec))
          .containsExactly(Map.entry(1L, shown(nameOfSize(1, 199_990))), Map.entry(3L, "after"));
      assertThat(health(service)).isEqualTo(200);
    }
  }

  @Test
  void shouldApplyAndDeadLetterRecordsNearARaisedTopicLimitAndLeaveLargerOnesToTheBroker() throws Exception {
    DimensionSpec spec = spec("raised", "");
    int topicLimit = 3_000_000;
    try (Admin admin = Admin.create(KAFKA.clientProperties())) {
      admin.createTopics(List.of(new NewTopic(spec.topics().changes(), 1, (short) 1)
          .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(topicLimit))))).all().get();
    }
    String valid = customerOfSize(10, 2_990_000);
    String malformed = customerOfSize(11, 2_990_000).substring(0, 2_989_999) + "!";
    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers());
        KafkaProducer<byte[], byte[]> producer = producer(8_000_000)) {
      for (String out : List.of(spec.topics().versions(), spec.topics().dlq())) {
        assertThat(maxMessageBytes(out)).as("max.message.bytes of %s", out).isGreaterThanOrEqualTo(topicLimit);
      }
      send(producer, spec.topics().changes(), "10", valid);
      send(producer, spec.topics().changes(), "11", malformed);
      assertThatThrownBy(() -> send(producer, spec.topics().changes(), "12", customerOfSize(12, 3_100_000)))
          .hasCauseInstanceOf(RecordTooLargeException.class);
      send(producer, spec.topics().changes(), "13", customer(13, "after"));
      awaitTable(service);

      List<ConsumerRecord<byte[], byte[]>> dead = dlq(service);
      assertThat(dead).hasSize(1);
      assertThat(header(dead.get(0), "dimstream.error")).isEqualTo("malformed-json");
      assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8)).isEqualTo(malformed);
      assertThat(names(spec))
          .containsExactly(Map.entry(10L, shown(nameOfSize(10, 2_990_000))), Map.entry(13L, "after"));
      assertThat(health(service)).isEqualTo(200);
    }
  }

  @Test
  void shouldDeadLetterAVersionRecordTheTableCannotTakeAndKeepCommitting() throws Exception {
    DimensionSpec spec = spec("surrogate", "");
    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers());
        KafkaProducer<byte[], byte[]> producer = producer(2_000_000)) {
      send(producer, spec.topics().changes(), null, customer(907, "PLACEHOLDER"));
      awaitTable(service);
      // a record as an older release or a hand-written tool could have left: a lone surrogate in a string (made from
      // the version record, not an event record: the event store's writes, which the compactor keeps beside the table)
      ConsumerRecord<byte[], byte[]> good = TopicReader.readAll(service.kafka(), spec.topics().versions(), true)
          .kept().stream().filter(r -> !EventRecordHeaders.isEvent(r.headers())).findFirst().orElseThrow();
      String bad = new String(good.value(), StandardCharsets.UTF_8).replace("PLACEHOLDER", "\\ud800");
      RecordMetadata written = producer.send(new ProducerRecord<>(spec.topics().versions(), good.key(),
          bad.getBytes(StandardCharsets.UTF_8))).get();
      send(producer, spec.topics().changes(), null, customer(908, "after"));
      awaitTable(service);

      List<ConsumerRecord<byte[], byte[]>> dead = dlq(service);
      assertThat(dead).hasSize(1);
      assertThat(header(dead.get(0), "dimstream.error")).isEqualTo("bad-version-record");
      assertThat(header(dead.get(0), "dimstream.error.detail")).contains("surrogate", "@" + written.offset());
      assertThat(header(dead.get(0), "dimstream.source.topic")).isEqualTo(spec.topics().versions());
      assertThat(header(dead.get(0), "dimstream.source.offset")).isEqualTo(Long.toString(written.offset()));
      assertThat(names(spec)).containsExactly(Map.entry(907L, "PLACEHOLDER"), Map.entry(908L, "after"));
      assertThat(service.compactor().failure()).isNull();
      assertThat(health(service)).isEqualTo(200);
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(int maxRequestSize) {
    Map<String, Object> p = new HashMap<>(KAFKA.clientProperties());
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, maxRequestSize);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new KafkaProducer<>(p);
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key, String value)
      throws InterruptedException, ExecutionException {
    producer.send(new ProducerRecord<>(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8))).get();
  }

  private static void awaitTable(DimensionService service) throws InterruptedException {
    DimensionSpec spec = service.spec();
    boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
        && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofMinutes(3));
    assertThat(caughtUp).as("the table caught up with the changes topic").isTrue();
  }

  private static List<ConsumerRecord<byte[], byte[]>> dlq(DimensionService service) {
    return TopicReader.readAll(service.kafka(), service.spec().topics().dlq(), true).kept();
  }

  /** customer_id to name of the current rows, as Delta Kernel reads the table, by customer_id. */
  private List<Map.Entry<Long, String>> names(DimensionSpec spec) {
    int name = spec.attributeColumns().stream().map(c -> c.name()).toList().indexOf("name");
    return KernelReader.latest(dir.resolve("table"), spec).stream()
        .filter(v -> v.validTo() == null)
        .map((Version v) -> Map.entry((Long) v.key().values().get(0), shown((String) v.attributes().get(name))))
        .sorted(Map.Entry.comparingByKey())
        .toList();
  }

  /** Long names as their length and ends, so a failure message stays readable. */
  private static String shown(String name) {
    return name.length() <= 40 ? name : name.length() + " chars " + name.substring(0, 5) + ".." + name.substring(
        name.length() - 5);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static int maxMessageBytes(String topic) throws Exception {
    try (Admin admin = Admin.create(KAFKA.clientProperties())) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      return Integer.parseInt(admin.describeConfigs(List.of(r)).all().get().get(r)
          .get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG).value());
    }
  }

  private static int health(DimensionService service) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.httpPort() + "/health")).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode();
  }
}
