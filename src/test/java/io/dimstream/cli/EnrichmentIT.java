package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.Enriched;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentCounters;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.enrich.Fact;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.ChangeEvent;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Enrichment on a real broker, in the dimension's own application with two partitions: orders sent between two halves
 * of a customers change stream whose second half holds late events crossing the orders' times are corrected on the
 * output topic, whose last record per order equals the batch point-in-time join with the final history; and
 * {@code dimstream enrich} against the table the service wrote gives the same join.
 */
class EnrichmentIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void shouldCorrectOrdersOnTheTopicWhenLateCustomerChangesCrossTheirTimes() throws Exception {
    DimensionSpec customers = ExampleSpec.customers(dir, "customers_enrich", "  partitions: 2\n");
    EnrichmentSpec orders = ordersSpec(dir, "orders_enrich", "customers_enrich.yaml");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(customers, 20_261_203L).keys(40).events(600)
        .late(0.2).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    int half = stream.jsonLines().size() / 2;
    Path first = Files.write(dir.resolve("first.jsonl"), stream.jsonLines().subList(0, half));
    Path second = Files.write(dir.resolve("second.jsonl"), stream.jsonLines().subList(half, stream.jsonLines().size()));
    List<Fact> facts = orders(stream.events(), 300);
    Path factsFile = writeOrders(orders, facts, dir.resolve("orders.jsonl"));
    EnrichedRows rows = new EnrichedRows(orders);

    Map<String, String> expected = new HashMap<>(); // compared as text: numbers read back are int nodes
    BatchEnrichment.join(orders, facts, Scd2Fold.fold(customers, stream.events()))
        .forEach((k, e) -> expected.put(k, withoutRevision(rows.row(e)).toString()));
    try (DimensionService service = DimensionService.start(customers, List.of(orders), KAFKA.bootstrapServers(),
        Clock.systemUTC())) {
      ProduceCommand.produce(customers, first, service.kafka());
      assertThat(FactsProducer.produce(orders, factsFile, service.kafka())).isEqualTo(facts.size());
      ProduceCommand.produce(customers, second, service.kafka());

      Map<String, String> last = new HashMap<>();
      List<Long> revisions = new ArrayList<>();
      boolean joined = CatchUp.await(() -> {
        last.clear();
        revisions.clear();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(service.kafka(), orders.outputTopic(), true)
            .kept()) {
          JsonNode row = read(r.value());
          last.put(new String(r.key(), StandardCharsets.UTF_8), withoutRevision((ObjectNode) row).toString());
          revisions.add(row.get("revision").asLong());
        }
        return last.equals(expected);
      }, Duration.ofMinutes(3));

      Map<String, String> wrong = new java.util.TreeMap<>();
      expected.forEach((k, want) -> {
        if (!want.equals(last.get(k))) {
          wrong.put(k, "want " + want + " got " + last.get(k));
        }
      });
      assertThat(wrong).as("orders whose last enriched record differs from the batch join").isEmpty();
      assertThat(last.keySet()).isEqualTo(expected.keySet());
      assertThat(joined).isTrue();
      EnrichmentCounters counters = service.enrichmentCounters().get("orders_enrich");
      assertThat(revisions).as("corrections on the topic").anyMatch(r -> r >= 2);
      assertThat(counters.corrected()).isPositive();
      assertThat(counters.enriched()).isEqualTo(facts.size());
      assertThat(TopicReader.readAll(service.kafka(), orders.dlqTopic(), true).kept()).isEmpty();
      String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create("http://127.0.0.1:" + service.httpPort() + "/metrics")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
      assertThat(metrics).contains("dimstream_enrichment_facts_total{dimension=\"customers_enrich\","
          + "enrichment=\"orders_enrich\",outcome=\"enriched\"} " + facts.size());
      assertThat(CatchUp.await(() -> CatchUp.tableCaughtUp(service.kafka(), customers, service.table()),
          Duration.ofMinutes(1))).as("the table caught up").isTrue();
    }

    // offline, against the table the service wrote: the same join, revision 1
    Path out = dir.resolve("enriched.jsonl");
    int code = Main.commandLine().execute("enrich", "--config", dir.resolve("orders_enrich.yaml").toString(),
        "--table", dir.resolve("table").toString(), "--facts", factsFile.toString(), "--output", out.toString());
    assertThat(code).isZero();
    Map<String, String> offline = new HashMap<>();
    for (String line : Files.readAllLines(out)) {
      ObjectNode row = (ObjectNode) read(line.getBytes(StandardCharsets.UTF_8));
      assertThat(row.get("revision").asLong()).isEqualTo(1);
      offline.put("[" + row.get("order_id").asLong() + "]", withoutRevision(row).toString());
    }
    assertThat(offline).isEqualTo(expected);
  }

  /** {@code n} orders of the stream's customers (and of one unknown customer), at times spread over the stream's. */
  static List<Fact> orders(List<ChangeEvent> events, int n) {
    long min = events.stream().mapToLong(e -> e.sequence().first()).min().orElseThrow();
    long max = events.stream().mapToLong(e -> e.sequence().first()).max().orElseThrow();
    List<Object> keys = events.stream().map(e -> e.key().values().get(0)).distinct().toList();
    Random rnd = new Random(7);
    List<Fact> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t = min - (max - min) / 10 + (long) (rnd.nextDouble() * (max - min) * 1.2);
      Object customer = i % 25 == 0 ? -1L : keys.get(rnd.nextInt(keys.size()));
      out.add(new Fact(List.of((long) i, customer, (Instant) ColumnValues.sequenceValue(t, ColumnType.TIMESTAMP),
          Math.round(rnd.nextDouble() * 10_000) / 100.0)));
    }
    return out;
  }

  /**
   * Writes and loads the orders enrichment {@code name} of the dimension spec file {@code dimensionFile} (in
   * {@code dir}): facts on {@code <name>_facts}, joined by customer_id, adding city and tier.
   */
  static EnrichmentSpec ordersSpec(Path dir, String name, String dimensionFile) throws java.io.IOException {
    Path file = Files.writeString(dir.resolve(name + ".yaml"), """
        name: %s
        dimension: %s
        facts:
          topic: %s_facts
          columns: {order_id: long, customer_id: long, ordered_at: timestamp, amount: double}
          key: [order_id]
          time: ordered_at
        join: {customer_id: customer_id}
        attributes: [city, tier]
        found_column: customer_found
        valid_from: customer_valid_from
        """.formatted(name, dimensionFile, name));
    return EnrichmentSpecLoader.load(file);
  }

  /** Writes {@code facts} of {@code orders} (this test's order columns) to {@code file} as JSON lines. */
  static Path writeOrders(EnrichmentSpec orders, List<Fact> facts, Path file) throws java.io.IOException {
    EnrichedRows rows = new EnrichedRows(orders);
    List<String> lines = new ArrayList<>();
    for (Fact f : facts) {
      ObjectNode n = rows.row(new Enriched(f, null, 1));
      lines.add(JSON.writeValueAsString(JSON.createObjectNode().setAll(Map.of("order_id", n.get("order_id"),
          "customer_id", n.get("customer_id"), "ordered_at", n.get("ordered_at"), "amount", n.get("amount")))));
    }
    return Files.write(file, lines);
  }

  static JsonNode read(byte[] value) {
    try {
      return JSON.readTree(value);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static ObjectNode withoutRevision(ObjectNode row) {
    ObjectNode copy = row.deepCopy();
    copy.remove("revision");
    return copy;
  }
}
