package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.Fact;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.ChangeEvent;
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
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An enrichment added to a service that already ran another one on a real broker: the service ran enrichment A over
 * the customers, stopped, and was started again with A and a new enrichment B. B's orders of the customers known
 * before it was added find their versions, late customer changes crossing them correct them, and the last record per
 * order of each enrichment equals the batch join with the final history.
 */
class AddedEnrichmentIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldGiveAnEnrichmentAddedLaterTheHistoryWrittenBeforeIt() throws Exception {
    DimensionSpec customers = ExampleSpec.customers(dir, "customers_added", "  partitions: 2\n");
    EnrichmentSpec a = enrichment("orders_a");
    EnrichmentSpec b = enrichment("orders_b");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(customers, 20_261_204L).keys(20).events(240)
        .late(0.2).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    int before = stream.jsonLines().size() * 3 / 4;
    Path first = Files.write(dir.resolve("first.jsonl"), stream.jsonLines().subList(0, before));
    Path second = Files.write(dir.resolve("second.jsonl"),
        stream.jsonLines().subList(before, stream.jsonLines().size()));
    List<ChangeEvent> firstEvents = stream.events().subList(0, before);
    List<Fact> ordersA = EnrichmentIT.orders(firstEvents, 60);
    List<Fact> ordersB = EnrichmentIT.orders(stream.events(), 120);
    Path ordersAFile = EnrichmentIT.writeOrders(a, ordersA, dir.resolve("orders-a.jsonl"));
    Path ordersBFile = EnrichmentIT.writeOrders(b, ordersB, dir.resolve("orders-b.jsonl"));

    try (DimensionService service = DimensionService.start(customers, List.of(a), KAFKA.bootstrapServers(),
        Clock.systemUTC())) {
      ProduceCommand.produce(customers, first, service.kafka());
      FactsProducer.produce(a, ordersAFile, service.kafka());
      awaitJoined(service, a, expected(a, ordersA, customers, firstEvents));
    }

    try (DimensionService service = DimensionService.start(customers, List.of(a, b), KAFKA.bootstrapServers(),
        Clock.systemUTC())) {
      FactsProducer.produce(b, ordersBFile, service.kafka());
      ProduceCommand.produce(customers, second, service.kafka());
      awaitJoined(service, b, expected(b, ordersB, customers, stream.events()));
      awaitJoined(service, a, expected(a, ordersA, customers, stream.events()));
      assertThat(TopicReader.readAll(service.kafka(), b.dlqTopic(), true).kept()).isEmpty();
    }
  }

  private EnrichmentSpec enrichment(String name) throws Exception {
    return EnrichmentIT.ordersSpec(dir, name, "customers_added.yaml");
  }

  /** The batch point-in-time join of {@code facts} with the history of {@code events}, as rows without revision. */
  private static Map<String, String> expected(EnrichmentSpec spec, List<Fact> facts, DimensionSpec customers,
      List<ChangeEvent> events) {
    EnrichedRows rows = new EnrichedRows(spec);
    Map<String, String> expected = new HashMap<>(); // compared as text: numbers read back are int nodes
    BatchEnrichment.join(spec, facts, Scd2Fold.fold(customers, events))
        .forEach((k, e) -> expected.put(k, EnrichmentIT.withoutRevision(rows.row(e)).toString()));
    return expected;
  }

  /** Waits until the last record per fact on {@code spec}'s output topic equals {@code expected}, and asserts it. */
  private static void awaitJoined(DimensionService service, EnrichmentSpec spec, Map<String, String> expected)
      throws Exception {
    Map<String, String> last = new HashMap<>();
    boolean joined = CatchUp.await(() -> {
      last.clear();
      for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(service.kafka(), spec.outputTopic(), true).kept()) {
        last.put(new String(r.key(), StandardCharsets.UTF_8),
            EnrichmentIT.withoutRevision((ObjectNode) EnrichmentIT.read(r.value())).toString());
      }
      return last.equals(expected);
    }, Duration.ofMinutes(2));
    Map<String, String> wrong = new TreeMap<>();
    expected.forEach((k, want) -> {
      if (!want.equals(last.get(k))) {
        wrong.put(k, "want " + want + " got " + last.get(k));
      }
    });
    assertThat(wrong).as(spec.name() + ": orders whose last enriched record differs from the batch join").isEmpty();
    assertThat(last.keySet()).isEqualTo(expected.keySet());
    assertThat(joined).isTrue();
  }
}
