package io.dimstream.enrich.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.enrich.EnrichmentCounters;
import io.dimstream.enrich.EnrichmentFixtures;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.topology.DimensionTopology;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnrichmentTopologyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;
  private TopologyTestDriver driver;
  private TestInputTopic<byte[], byte[]> changes;
  private TestInputTopic<byte[], byte[]> orders;
  private TestOutputTopic<byte[], byte[]> enriched;
  private TestOutputTopic<byte[], byte[]> dlq;
  private Map<String, EnrichmentCounters> counters;
  private Schema avroOrders;

  /** The customers dimension and orders sent in {@code format}, as the enrichment tests build them. */
  private void start(String format) {
    DimensionSpec customers = EnrichmentFixtures.customers(EnrichmentFixtures.micros(30 * 86_400));
    EnrichmentSpec ordersSpec = EnrichmentFixtures.orders(customers, true, "0s", format);
    avroOrders = ordersSpec.factsAvroSchema();
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, customers);
    counters = EnrichmentTopology.build(builder, customers, List.of(ordersSpec), 1, Duration.ofMillis(100));
    driver = new TopologyTestDriver(builder.build(),
        DimensionTopology.config(customers, EnrichmentFixtures.WITHOUT_BROKER, dir.resolve("state")), Instant.parse("2026-01-01T00:00:00Z"));
    changes = driver.createInputTopic("customers.changes", new ByteArraySerializer(), new ByteArraySerializer());
    orders = driver.createInputTopic("orders", new ByteArraySerializer(), new ByteArraySerializer());
    enriched = driver.createOutputTopic("orders_enriched.enriched", new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    dlq = driver.createOutputTopic("orders_enriched.dlq", new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void stop() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldEnrichOrdersAsOfTheirTimeAndCorrectThemWhenTheDimensionLearnsLate() throws IOException {
    start("json");
    change("{\"customer_id\": 1, \"name\": \"Ada\", \"city\": \"Paris\", \"tier\": \"gold\", \"updated_at\": \"2026-01-01T10:00:00Z\", \"op\": \"c\"}");
    order("{\"order_id\": 100, \"customer_id\": 1, \"ordered_at\": \"2026-01-01T12:00:00Z\", \"amount\": 20.0}");
    order("{\"order_id\": 101, \"customer_id\": 1, \"ordered_at\": \"2026-01-01T09:00:00Z\", \"amount\": 5.0}");
    order("{\"order_id\": 102, \"customer_id\": 2, \"ordered_at\": \"2026-01-01T12:00:00Z\", \"amount\": 7.0}");
    // late: Ada moved to Lyon at 11:00, before order 100
    change("{\"customer_id\": 1, \"name\": \"Ada\", \"city\": \"Lyon\", \"tier\": \"gold\", \"updated_at\": \"2026-01-01T11:00:00Z\", \"op\": \"u\"}");
    driver.advanceWallClockTime(Duration.ofMillis(200));

    List<JsonNode> records = records();
    assertThat(records).extracting(r -> r.get("order_id").asLong(), r -> r.get("city").asText(null),
            r -> r.get("customer_found").asBoolean(), r -> r.get("revision").asLong())
        .containsExactly(tuple(100L, "Paris", true, 1L), tuple(101L, null, false, 1L), tuple(102L, null, false, 1L),
            tuple(100L, "Lyon", true, 2L));
    assertThat(records.get(3).get("customer_valid_from").asText()).isEqualTo("2026-01-01T11:00:00Z");
    assertThat(records.get(3).get("amount").asDouble()).isEqualTo(20.0);
    assertThat(counters.get("orders_enriched").corrected()).isEqualTo(1);
    assertThat(counters.get("orders_enriched").unmatched()).isEqualTo(2);
  }

  @Test
  void shouldKeyEnrichedRecordsByTheFactKey() {
    start("json");
    change("{\"customer_id\": 1, \"name\": \"Ada\", \"city\": \"Paris\", \"tier\": \"gold\", \"updated_at\": \"2026-01-01T10:00:00Z\", \"op\": \"c\"}");
    order("{\"order_id\": 100, \"customer_id\": 1, \"ordered_at\": \"2026-01-01T12:00:00Z\", \"amount\": 20.0}");

    TestRecord<byte[], byte[]> r = enriched.readRecord();
    assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("[100]");
  }

  @Test
  void shouldSendAnUnreadableFactToTheDeadLetterTopicAndKeepGoing() throws IOException {
    start("json");
    order("{\"order_id\": 100, \"ordered_at\": \"2026-01-01T12:00:00Z\", \"amount\": 20.0}");
    order("not json");
    order("{\"order_id\": 101, \"customer_id\": 3, \"ordered_at\": \"2026-01-01T12:00:00Z\", \"amount\": 1.0}");

    List<TestRecord<byte[], byte[]>> rejected = dlq.readRecordsToList();
    assertThat(rejected).extracting(r -> header(r, "dimstream.error"))
        .containsExactly("missing-join", "malformed-json");
    assertThat(header(rejected.get(0), "dimstream.error.detail")).contains("customer_id");
    assertThat(new String(rejected.get(1).value(), StandardCharsets.UTF_8)).isEqualTo("not json");
    assertThat(records()).extracting(r -> r.get("order_id").asLong()).containsExactly(101L);
  }

  @Test
  void shouldEnrichAvroOrdersAndSendAnUnreadableOneToTheDeadLetterTopic() throws IOException {
    start("avro");
    change("{\"customer_id\": 1, \"name\": \"Ada\", \"city\": \"Paris\", \"tier\": \"gold\", \"updated_at\": \"2026-01-01T10:00:00Z\", \"op\": \"c\"}");
    orders.pipeInput(avroOrder(100, 1, "2026-01-01T12:00:00Z", 20.0));
    orders.pipeInput("{\"order_id\": 101}".getBytes(StandardCharsets.UTF_8)); // JSON where Avro is expected
    orders.pipeInput(avroOrder(102, 1, "2026-01-01T09:00:00Z", null));
    change("{\"customer_id\": 1, \"name\": \"Ada\", \"city\": \"Lyon\", \"tier\": \"gold\", \"updated_at\": \"2026-01-01T11:00:00Z\", \"op\": \"u\"}");
    driver.advanceWallClockTime(Duration.ofMillis(200));

    assertThat(records()).extracting(r -> r.get("order_id").asLong(), r -> r.get("city").asText(null),
            r -> r.get("amount").isNull(), r -> r.get("revision").asLong())
        .containsExactly(tuple(100L, "Paris", false, 1L), tuple(102L, null, true, 1L), tuple(100L, "Lyon", false, 2L));
    List<TestRecord<byte[], byte[]>> rejected = dlq.readRecordsToList();
    assertThat(rejected).extracting(r -> header(r, "dimstream.error")).containsExactly("malformed-avro");
    assertThat(header(rejected.get(0), "dimstream.error.detail")).contains("not an Avro record of the facts' schema");
  }

  /** An order as a producer with the facts' schema writes it: Avro's own writer, plain binary encoding. */
  private byte[] avroOrder(long id, long customer, String orderedAt, Double amount) throws IOException {
    GenericRecord r = new GenericData.Record(avroOrders);
    r.put("order_id", id);
    r.put("customer_id", customer);
    Instant t = Instant.parse(orderedAt);
    r.put("ordered_at", t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000);
    r.put("amount", amount);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
    new GenericDatumWriter<GenericRecord>(avroOrders).write(r, out);
    out.flush();
    return bytes.toByteArray();
  }

  private List<JsonNode> records() throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (byte[] v : enriched.readValuesToList()) {
      out.add(JSON.readTree(v));
    }
    return out;
  }

  private static String header(TestRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private void change(String json) {
    changes.pipeInput(json.getBytes(StandardCharsets.UTF_8));
  }

  private void order(String json) {
    orders.pipeInput(json.getBytes(StandardCharsets.UTF_8));
  }

  private static org.assertj.core.groups.Tuple tuple(Object... values) {
    return org.assertj.core.groups.Tuple.tuple(values);
  }
}
