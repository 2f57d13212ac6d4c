package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.enrich.Fact;
import io.dimstream.history.Scd2Fold;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Avro facts on a real broker: {@code dimstream produce} writes a facts file as Avro with the facts' schema, the
 * enrichment reads them and, with late customer changes after them, its topic ends with the batch join; a line Avro
 * cannot hold stops produce before anything is sent.
 */
class AvroFactsIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldEnrichAvroFactsAndEndWithTheBatchJoin() throws Exception {
    DimensionSpec customers = ExampleSpec.customers(dir, "customers_avro_facts", "");
    Files.writeString(dir.resolve("orders-enrich.yaml"), """
        name: orders_avro
        dimension: customers_avro_facts.yaml
        facts:
          topic: orders_avro_facts
          format: avro
          columns: {order_id: long, customer_id: long, ordered_at: timestamp, amount: double}
          key: [order_id]
          time: ordered_at
        join: {customer_id: customer_id}
        attributes: [city, tier]
        """);
    EnrichmentSpec orders = EnrichmentSpecLoader.load(dir.resolve("orders-enrich.yaml"));
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(customers, 20_261_204L).keys(20).events(200)
        .late(0.2).deletes(0.03).generate();
    int half = stream.jsonLines().size() / 2;
    Path first = Files.write(dir.resolve("first.jsonl"), stream.jsonLines().subList(0, half));
    Path second = Files.write(dir.resolve("second.jsonl"), stream.jsonLines().subList(half, stream.jsonLines().size()));
    List<Fact> facts = EnrichmentIT.orders(stream.events(), 100);
    Path factsFile = EnrichmentIT.writeOrders(orders, facts, dir.resolve("orders.jsonl"));
    EnrichedRows rows = new EnrichedRows(orders);
    Map<String, String> expected = new HashMap<>();
    BatchEnrichment.join(orders, facts, Scd2Fold.fold(customers, stream.events()))
        .forEach((k, e) -> expected.put(k, EnrichmentIT.withoutRevision(rows.row(e)).toString()));

    try (DimensionService service = DimensionService.start(customers, List.of(orders), KAFKA.bootstrapServers(),
        Clock.systemUTC())) {
      ProduceCommand.produce(customers, first, service.kafka());
      assertThat(FactsProducer.produce(orders, factsFile, service.kafka())).isEqualTo(facts.size());
      ProduceCommand.produce(customers, second, service.kafka());

      Map<String, String> last = new HashMap<>();
      boolean joined = CatchUp.await(() -> {
        last.clear();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(service.kafka(), orders.outputTopic(), true)
            .kept()) {
          last.put(new String(r.key(), StandardCharsets.UTF_8),
              EnrichmentIT.withoutRevision((ObjectNode) EnrichmentIT.read(r.value())).toString());
        }
        return last.equals(expected);
      }, Duration.ofMinutes(2));
      assertThat(last).isEqualTo(expected);
      assertThat(joined).isTrue();
      assertThat(TopicReader.readAll(service.kafka(), orders.dlqTopic(), true).kept()).isEmpty();
      assertThat(service.enrichmentCounters().get("orders_avro").enriched()).isEqualTo(facts.size());

      // the facts topic holds Avro, not the JSON lines; a line Avro cannot hold stops produce before anything is sent
      List<ConsumerRecord<byte[], byte[]>> sent = TopicReader.readAll(service.kafka(), "orders_avro_facts", true)
          .kept();
      assertThat(sent).hasSize(facts.size());
      assertThat(new String(sent.get(0).value(), StandardCharsets.UTF_8)).doesNotContain("order_id");
      Path bad = Files.write(dir.resolve("bad.jsonl"), List.of(Files.readAllLines(factsFile).get(0),
          "{\"order_id\": 9999, \"ordered_at\": \"2026-03-01T00:00:00Z\", \"amount\": 1.0}"));
      assertThatThrownBy(() -> FactsProducer.produce(orders, bad, service.kafka()))
          .hasMessageContaining("line 2").hasMessageContaining("customer_id")
          .hasMessageContaining("Nothing was sent");
      assertThat(TopicReader.readAll(service.kafka(), "orders_avro_facts", true).kept()).hasSize(facts.size());
    }
  }
}
