package io.dimstream.enrich.streams;

import static io.dimstream.enrich.EnrichmentFixtures.enrichedRow;
import static io.dimstream.enrich.EnrichmentFixtures.withoutRevision;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentFixtures;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.enrich.Fact;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import io.dimstream.topology.DimensionTopology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An enrichment restarted on the state it kept after its dimension's spec evolved (a column added before the others,
 * an int column widened to long) or after its own spec changed. Late dimension events that cross the facts kept from
 * before, and new facts, end with the batch join of every fact with the final history under the new specs; a change
 * the stored facts cannot follow stops the enrichment at start, saying what to do. (A restart is the same store bytes
 * under a new topology; TopologyTestDriver deletes its state directory on close, so the stores are carried over by
 * copying them.)
 */
class EvolvedSpecEnrichmentTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  /** Attributes: name, city, score (int). */
  private static final DimensionSpec NARROW = DimensionSpec.builder("customers")
      .column("customer_id", "long").column("name", "string").column("city", "string").column("score", "int")
      .column("updated_at", "timestamp").column("op", "string")
      .key("customer_id").sequence("updated_at").delete(new DeleteRule.ColumnEquals("op", "d"))
      .latenessHorizon(30L * 86_400 * 1_000_000).build();
  /** Attributes: segment (added, first), name, city, score (widened to long). */
  private static final DimensionSpec WIDE = DimensionSpec.builder("customers")
      .column("customer_id", "long").column("segment", "string").column("name", "string").column("city", "string")
      .column("score", "long").column("updated_at", "timestamp").column("op", "string")
      .key("customer_id").sequence("updated_at").delete(new DeleteRule.ColumnEquals("op", "d"))
      .latenessHorizon(30L * 86_400 * 1_000_000).build();
  /** What the table property holds once the table followed NARROW to WIDE. */
  private static final String LAYOUTS = new StateLayouts(List.of(List.of("name", "city", "score"))).toJson();

  @TempDir
  Path dir;

  /** Every event sent, as the reference fold under WIDE reads it (the added segment null in the earlier ones). */
  private final List<ChangeEvent> events = new ArrayList<>();
  private final List<Fact> facts = new ArrayList<>();
  /** The enriched records before the restart. */
  private final List<TestRecord<byte[], byte[]>> before = new ArrayList<>();

  @Test
  void shouldFollowItsDimensionGainingAColumnAndWideningAnother() {
    EnrichmentSpec before = orders(NARROW, "[city, score]", "amount: double");
    EnrichmentSpec after = orders(WIDE, "[city, score]", "amount: double");
    Map<String, List<KeyValue<Bytes, byte[]>>> stored = runBefore(before);

    List<TestRecord<byte[], byte[]>> out = new ArrayList<>();
    try (Run run = new Run(WIDE, after, LAYOUTS)) {
      run.restore(stored);
      runAfter(run, after);
      out.addAll(run.enriched());
      assertThat(run.rejected()).isEmpty();
    }
    assertEndsWithTheBatchJoin(after, out);
    // order 100 (12:00) was enriched with Paris/3 before; the late 11:00 event corrects it, with the widened score
    assertThat(last(out, "[100]").get("city").asText()).isEqualTo("Lyon");
    assertThat(last(out, "[100]").get("score").asLong()).isEqualTo(4_000_000_000L);
    assertThat(last(out, "[100]").get("revision").asLong()).isEqualTo(2);
    // order 103 (10:30) found the version stored before the spec evolved: its segment null, its score widened
    assertThat(last(out, "[103]").get("city").asText()).isEqualTo("Paris");
    assertThat(last(out, "[103]").get("score").asLong()).isEqualTo(3);
    // the orders no late event crossed show what they showed: no record again
    assertThat(out).extracting(r -> new String(r.key(), StandardCharsets.UTF_8)).doesNotContain("[106]", "[107]");
  }

  @Test
  void shouldFollowAnAttributeAddedToItsOwnSpec() {
    EnrichmentSpec before = orders(NARROW, "[city, score]", "amount: double");
    EnrichmentSpec after = orders(WIDE, "[segment, {name: customer_name}, score, city]", "amount: double");
    Map<String, List<KeyValue<Bytes, byte[]>>> stored = runBefore(before);

    List<TestRecord<byte[], byte[]>> out = new ArrayList<>();
    try (Run run = new Run(WIDE, after, LAYOUTS)) {
      run.restore(stored);
      runAfter(run, after);
      out.addAll(run.enriched());
      assertThat(run.rejected()).isEmpty();
    }
    assertEndsWithTheBatchJoin(after, out);
    assertThat(last(out, "[100]").get("segment").asText()).isEqualTo("smb");
    // no late event crossed order 107, but its record now shows the name too: emitted again once, at the restart
    assertThat(out).filteredOn(r -> new String(r.key(), StandardCharsets.UTF_8).equals("[107]")).singleElement()
        .satisfies(r -> assertThat(enrichedRow(r.value()).get("customer_name").asText()).isEqualTo("Ada"))
        .satisfies(r -> assertThat(enrichedRow(r.value()).get("revision").asLong()).isEqualTo(2));
    // order 106 had no version, and still has none: nothing new to show
    assertThat(out).extracting(r -> new String(r.key(), StandardCharsets.UTF_8)).doesNotContain("[106]");
  }

  @Test
  void shouldRefuseToStartWhenTheFactColumnsOfTheStoredFactsChanged() {
    EnrichmentSpec before = orders(NARROW, "[city, score]", "amount: double");
    EnrichmentSpec after = orders(NARROW, "[city, score]", "amount: double, channel: string");
    Map<String, List<KeyValue<Bytes, byte[]>>> stored = runBefore(before);

    try (Run run = new Run(NARROW, after, "")) {
      run.restore(stored);
      // (a service refuses at start, once the stores are restored; here they are restored after it started)
      change(run, 1, "11:30", null, "Ada", "Nice", 1); // would correct order 100
      order(run, 110, 1, "16:00");
      run.driver.advanceWallClockTime(Duration.ofSeconds(1));

      assertThat(run.enriched()).as("records enriched from facts it cannot read").isEmpty();
      // the two version records of the change, and the order: each to the dead-letter topic, saying why
      assertThat(run.rejected()).hasSize(3).allSatisfy(r -> assertThat(r)
          .contains("enrichment orders_enriched")
          .contains("[order_id, customer_id, ordered_at, amount]")
          .contains("[order_id, customer_id, ordered_at, amount, channel]")
          .contains("Fix:"));
    }
  }

  /** Customers 1 and 2, and orders before, at and after their first versions; returns every store's records. */
  private Map<String, List<KeyValue<Bytes, byte[]>>> runBefore(EnrichmentSpec spec) {
    try (Run run = new Run(NARROW, spec, "")) {
      change(run, 1, "10:00", null, "Ada", "Paris", 3);
      change(run, 2, "10:00", null, "Bob", "Rome", 5);
      order(run, 100, 1, "12:00");
      order(run, 101, 1, "09:00");
      order(run, 102, 2, "11:00");
      order(run, 106, 2, "09:30");
      order(run, 107, 1, "10:15");
      run.driver.advanceWallClockTime(Duration.ofSeconds(1));
      before.addAll(run.enriched());
      assertThat(before).hasSize(5);
      assertThat(run.rejected()).isEmpty();
      return run.stores();
    }
  }

  /** Late events crossing the orders kept from before, a new version of customer 2, and new orders. */
  private void runAfter(Run run, EnrichmentSpec spec) {
    change(run, 1, "11:00", "smb", "Ada", "Lyon", 4_000_000_000L); // crosses order 100
    change(run, 1, "08:00", "smb", "Ada", "Caen", 1); // crosses order 101: found now
    order(run, 103, 1, "10:30"); // in the version written before the spec evolved
    change(run, 2, "13:00", "ent", "Bob", "Milan", 6);
    order(run, 104, 2, "14:00");
    order(run, 105, 2, "10:30");
    change(run, 2, "10:45", null, "Bob", "Turin", 7); // crosses 102 and 105
    run.driver.advanceWallClockTime(Duration.ofSeconds(1));
  }

  private void assertEndsWithTheBatchJoin(EnrichmentSpec spec, List<TestRecord<byte[], byte[]>> out) {
    EnrichedRows rows = new EnrichedRows(spec);
    Map<String, JsonNode> want = new HashMap<>();
    BatchEnrichment.join(spec, facts, Scd2Fold.fold(WIDE, events))
        .forEach((k, e) -> want.put(k, withoutRevision(enrichedRow(rows.value(e)))));
    Map<String, JsonNode> got = new HashMap<>();
    List<TestRecord<byte[], byte[]>> all = new ArrayList<>(before);
    all.addAll(out);
    for (TestRecord<byte[], byte[]> r : all) {
      ObjectNode row = withoutRevision(enrichedRow(r.value()));
      // a record written before the restart lacks the columns added since: an upsert sink reads them as null
      want.getOrDefault(new String(r.key(), StandardCharsets.UTF_8), JSON.createObjectNode()).fieldNames()
          .forEachRemaining(f -> row.set(f, row.has(f) ? row.get(f) : JSON.nullNode()));
      got.put(new String(r.key(), StandardCharsets.UTF_8), row);
    }
    assertThat(got).isEqualTo(want);
  }

  private ObjectNode last(List<TestRecord<byte[], byte[]>> out, String key) {
    ObjectNode found = null;
    for (TestRecord<byte[], byte[]> r : out) {
      if (new String(r.key(), StandardCharsets.UTF_8).equals(key)) {
        found = enrichedRow(r.value());
      }
    }
    assertThat(found).as("a record of order %s", key).isNotNull();
    return found;
  }

  private void change(Run run, long customer, String time, String segment, String name, String city, long score) {
    Instant at = Instant.parse("2026-01-01T" + time + ":00Z");
    ObjectNode n = JSON.createObjectNode().put("customer_id", customer);
    if (segment != null) {
      n.put("segment", segment);
    }
    n.put("name", name).put("city", city).put("score", score).put("updated_at", at.toString()).put("op", "u");
    run.changes(n.toString());
    long micros = at.getEpochSecond() * 1_000_000L;
    events.add(ChangeEvent.upsert(BusinessKey.of(customer), Sequence.of(micros),
        Arrays.asList(segment, name, city, score)));
  }

  private void order(Run run, long id, long customer, String time) {
    Instant at = Instant.parse("2026-01-01T" + time + ":00Z");
    facts.add(new Fact(List.of(id, customer, at, 10.0 + id)));
    ObjectNode n = JSON.createObjectNode().put("order_id", id).put("customer_id", customer)
        .put("ordered_at", at.toString()).put("amount", 10.0 + id);
    run.orders(n.toString());
  }

  private static EnrichmentSpec orders(DimensionSpec customers, String attributes, String moreColumns) {
    String yaml = """
        name: orders_enriched
        dimension: customers.yaml
        facts:
          topic: orders
          columns: {order_id: long, customer_id: long, ordered_at: timestamp, %s}
          key: [order_id]
          time: ordered_at
        join: {customer_id: customer_id}
        attributes: %s
        found_column: customer_found
        valid_from: customer_valid_from
        """.formatted(moreColumns, attributes);
    try {
      return EnrichmentSpecLoader.parse(YAML.readTree(yaml), null, customers);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The service's topology (the dimension and the enrichment) on a test driver. */
  private final class Run implements AutoCloseable {
    final TopologyTestDriver driver;
    final DimensionSpec dimension;
    final EnrichmentSpec spec;

    Run(DimensionSpec dimension, EnrichmentSpec spec, String layouts) {
      this.dimension = dimension;
      this.spec = spec;
      StreamsBuilder builder = new StreamsBuilder();
      DimensionTopology.build(builder, dimension);
      EnrichmentTopology.build(builder, dimension, List.of(spec), 1, Duration.ofMillis(100));
      Properties config = DimensionTopology.config(dimension, EnrichmentFixtures.WITHOUT_BROKER, dir.resolve("state"));
      config.put(DimensionTopology.STATE_LAYOUTS_CONFIG, layouts);
      driver = new TopologyTestDriver(builder.build(), config, START);
    }

    void changes(String json) {
      driver.createInputTopic(dimension.topics().changes(), new ByteArraySerializer(), new ByteArraySerializer())
          .pipeInput(json.getBytes(StandardCharsets.UTF_8));
    }

    void orders(String json) {
      driver.createInputTopic(spec.facts().topic(), new ByteArraySerializer(), new ByteArraySerializer())
          .pipeInput(json.getBytes(StandardCharsets.UTF_8));
    }

    List<TestRecord<byte[], byte[]>> enriched() {
      return driver.createOutputTopic(spec.outputTopic(), new ByteArrayDeserializer(), new ByteArrayDeserializer())
          .readRecordsToList();
    }

    /** What went to the dimension's and the enrichment's dead-letter topics, with the reason. */
    List<String> rejected() {
      List<String> out = new ArrayList<>();
      for (String topic : List.of(dimension.topics().dlq(), spec.dlqTopic())) {
        driver.createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer()).readRecordsToList()
            .forEach(r -> out.add(topic + ": " + header(r, "dimstream.error.detail")));
      }
      return out;
    }

    @SuppressWarnings("unchecked")
    Map<String, List<KeyValue<Bytes, byte[]>>> stores() {
      Map<String, List<KeyValue<Bytes, byte[]>>> out = new HashMap<>();
      for (Map.Entry<String, StateStore> s : driver.getAllStateStores().entrySet()) {
        List<KeyValue<Bytes, byte[]>> records = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = ((KeyValueStore<Bytes, byte[]>) s.getValue()).all()) {
          it.forEachRemaining(records::add);
        }
        out.put(s.getKey(), records);
      }
      assertThat(out.get(EnrichmentTopology.versionsStore(spec))).isNotEmpty();
      assertThat(out.get(EnrichmentTopology.factsStore(spec))).isNotEmpty();
      return out;
    }

    @SuppressWarnings("unchecked")
    void restore(Map<String, List<KeyValue<Bytes, byte[]>>> stored) {
      stored.forEach((name, records) -> {
        KeyValueStore<Bytes, byte[]> store = (KeyValueStore<Bytes, byte[]>) driver.getAllStateStores().get(name);
        records.forEach(kv -> store.put(kv.key, kv.value));
      });
    }

    @Override
    public void close() {
      driver.close();
    }
  }

  private static String header(TestRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
