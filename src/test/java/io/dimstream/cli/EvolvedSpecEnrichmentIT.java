package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.enrich.Fact;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An enrichment on a real broker, stopped and restarted on the same data directory after its dimension's spec gained
 * a column (before the others) and widened one from int to long: late customer changes that cross the orders
 * enriched before the restart correct them, new orders find the versions kept from before, nothing goes to a
 * dead-letter topic, and the last record per order equals the batch join with the final history. Restarted once more
 * with fact columns its kept orders cannot be read as, it stops instead of enriching.
 */
class EvolvedSpecEnrichmentIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private final List<ChangeEvent> events = new ArrayList<>();
  private final List<Fact> facts = new ArrayList<>();

  @Test
  void shouldCorrectOrdersKeptBeforeTheDimensionSpecEvolvedAndRefuseFactsItCannotRead() throws Exception {
    DimensionSpec narrow = customers("name: string, city: string, score: int");
    EnrichmentSpec before = orders("amount: double");
    run(narrow, before, List.of(change(1, "10:00", null, "Ada", "Paris", 3), change(2, "10:00", null, "Bob", "Rome", 5)),
        List.of(order(100, 1, "12:00"), order(101, 1, "09:00"), order(102, 2, "11:00"), order(107, 1, "10:15")));

    DimensionSpec wide = customers("segment: string, name: string, city: string, score: long");
    EnrichmentSpec after = orders("amount: double");
    Map<String, String> last = run(wide, after, List.of(
            change(1, "11:00", "smb", "Ada", "Lyon", 4_000_000_000L), change(1, "08:00", "smb", "Ada", "Caen", 1),
            change(2, "13:00", "ent", "Bob", "Milan", 6), change(2, "10:45", null, "Bob", "Turin", 7)),
        List.of(order(103, 1, "10:30"), order(104, 2, "14:00")));
    assertThat(JSON.readTree(last.get("[100]")).get("score").asLong()).isEqualTo(4_000_000_000L);

    // fact columns the kept orders were not written with: the service stops rather than misread them
    EnrichmentSpec changed = orders("amount: double, channel: string");
    try (DimensionService service = DimensionService.start(wide, List.of(changed), KAFKA.bootstrapServers(),
        Clock.systemUTC())) {
      CompletableFuture<Void> failed = CompletableFuture.runAsync(() -> {
        try {
          service.awaitFailure();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      failed.get(2, TimeUnit.MINUTES);
      assertThat(service.streams().state()).isIn(KafkaStreams.State.PENDING_ERROR, KafkaStreams.State.ERROR);
    }
  }

  /**
   * Starts the service with {@code changes} and {@code orders}, waits until the last record per order equals the batch
   * join of every order sent so far with the history of every change sent so far, and returns those records.
   */
  private Map<String, String> run(DimensionSpec customers, EnrichmentSpec spec, List<String> changes,
      List<String> orders) throws Exception {
    Path changesFile = Files.write(dir.resolve("changes-" + events.size() + ".jsonl"), changes);
    Path ordersFile = Files.write(dir.resolve("orders-" + facts.size() + ".jsonl"), orders);
    EnrichedRows rows = new EnrichedRows(spec);
    Map<String, String> expected = new HashMap<>();
    BatchEnrichment.join(spec, facts, Scd2Fold.fold(customers, widened(customers)))
        .forEach((k, e) -> expected.put(k, withoutRevision(rows.row(e)).toString()));
    Map<String, String> last = new HashMap<>();
    try (DimensionService service = DimensionService.start(customers, List.of(spec), KAFKA.bootstrapServers(),
        Clock.systemUTC())) {
      ProduceCommand.produce(customers, changesFile, service.kafka());
      FactsProducer.produce(spec, ordersFile, service.kafka());
      boolean joined = CatchUp.await(() -> {
        last.clear();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(service.kafka(), spec.outputTopic(), true)
            .kept()) {
          last.put(new String(r.key(), StandardCharsets.UTF_8), withoutRevision((ObjectNode) read(r.value()))
              .toString());
        }
        return last.equals(expected);
      }, Duration.ofMinutes(2));
      assertThat(last).as("the last record per order").isEqualTo(expected);
      assertThat(joined).isTrue();
      assertThat(TopicReader.readAll(service.kafka(), customers.topics().dlq(), true).kept()).isEmpty();
      assertThat(TopicReader.readAll(service.kafka(), spec.dlqTopic(), true).kept()).isEmpty();
    }
    return last;
  }

  private DimensionSpec customers(String attributes) throws Exception {
    Files.writeString(dir.resolve("customers_evolve.yaml"), """
        name: customers_evolve
        columns: {customer_id: long, %s, updated_at: timestamp}
        key: [customer_id]
        sequence: [updated_at]
        service:
          data_dir: %s
          table_path: %s
          compaction: {interval: 1s}
          http: {port: 0}
        """.formatted(attributes, dir.resolve("data"), dir.resolve("table")));
    return DimensionSpecLoader.load(dir.resolve("customers_evolve.yaml"));
  }

  private EnrichmentSpec orders(String moreColumns) throws Exception {
    Files.writeString(dir.resolve("orders-evolve.yaml"), """
        name: orders_evolve
        dimension: customers_evolve.yaml
        facts:
          topic: orders_evolve_facts
          columns: {order_id: long, customer_id: long, ordered_at: timestamp, %s}
          key: [order_id]
          time: ordered_at
        join: {customer_id: customer_id}
        attributes: [city, score]
        found_column: customer_found
        valid_from: customer_valid_from
        """.formatted(moreColumns));
    return EnrichmentSpecLoader.load(dir.resolve("orders-evolve.yaml"));
  }

  /** A change record; kept, with the segment in front, for the reference fold. */
  private String change(long customer, String time, String segment, String name, String city, long score) {
    Instant at = Instant.parse("2026-01-01T" + time + ":00Z");
    events.add(ChangeEvent.upsert(BusinessKey.of(customer), Sequence.of(at.getEpochSecond() * 1_000_000L),
        Arrays.asList(segment, name, city, score)));
    ObjectNode n = JSON.createObjectNode().put("customer_id", customer);
    if (segment != null) {
      n.put("segment", segment);
    }
    return n.put("name", name).put("city", city).put("score", score).put("updated_at", at.toString()).toString();
  }

  private String order(long id, long customer, String time) {
    Instant at = Instant.parse("2026-01-01T" + time + ":00Z");
    facts.add(new Fact(List.of(id, customer, at, 10.0 + id)));
    return JSON.createObjectNode().put("order_id", id).put("customer_id", customer).put("ordered_at", at.toString())
        .put("amount", 10.0 + id).toString();
  }

  /** The events sent so far, in {@code customers}' attributes (without the segment before it was added). */
  private List<ChangeEvent> widened(DimensionSpec customers) {
    if (customers.attributeColumns().size() == 4) {
      return events;
    }
    return events.stream().map(e -> ChangeEvent.upsert(e.key(), e.sequence(),
        Arrays.asList(e.attributes().get(1), e.attributes().get(2), (int) (long) (Long) e.attributes().get(3))))
        .toList();
  }

  private static JsonNode read(byte[] value) {
    try {
      return JSON.readTree(value);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode withoutRevision(ObjectNode row) {
    ObjectNode copy = row.deepCopy();
    copy.remove("revision");
    return copy;
  }
}
