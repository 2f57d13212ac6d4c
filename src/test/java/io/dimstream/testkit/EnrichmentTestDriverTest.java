package io.dimstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.model.Version;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The test kit drives the example dimension with the example orders enrichment, as a user's own test would. */
class EnrichmentTestDriverTest {

  @Test
  void shouldEnrichTheExampleOrdersWithTheCustomerValidAtEachOrder() throws Exception {
    try (DimensionTestDriver dim = DimensionTestDriver.withEnrichments(Path.of("examples/customers.yaml"),
        Path.of("examples/orders-enrich.yaml"))) {
      dim.send(Files.readAllLines(Path.of("examples/customers-changes.jsonl")).toArray(String[]::new));
      dim.sendFacts("orders_enriched", Files.readAllLines(Path.of("examples/orders.jsonl")).toArray(String[]::new));

      Map<String, JsonNode> last = dim.lastEnriched("orders_enriched");
      assertThat(last).hasSize(5);
      for (JsonNode order : last.values()) {
        Optional<Version> v = dim.asOf(order.get("ordered_at").asText(), order.get("customer_id").asLong());
        assertThat(order.get("customer_found").asBoolean()).as("order %s found", order.get("order_id"))
            .isEqualTo(v.isPresent());
        // customers' attributes: name, email, city, tier
        assertThat(order.get("city").isNull() ? null : order.get("city").asText())
            .as("order %s city", order.get("order_id")).isEqualTo(v.map(x -> (String) x.attributes().get(2)).orElse(null));
      }
      assertThat(last.get("[1]").get("city").asText()).isEqualTo("Lyon");
      assertThat(last.get("[5]").get("customer_found").asBoolean()).isFalse();
    }
  }

  @Test
  void shouldShowTheCorrectionWhenTheDimensionLearnsLate() {
    try (DimensionTestDriver dim = DimensionTestDriver.withEnrichments(Path.of("examples/customers.yaml"),
        Path.of("examples/orders-enrich.yaml"))) {
      dim.send("{\"customer_id\": 7, \"name\": \"Ada\", \"email\": \"a@example.com\", \"city\": \"Oslo\", "
          + "\"tier\": \"gold\", \"updated_at\": \"2026-03-01T08:00:00Z\", \"op\": \"c\"}");
      dim.sendFacts("orders_enriched",
          "{\"order_id\": 70, \"customer_id\": 7, \"ordered_at\": \"2026-03-01T12:00:00Z\", \"amount\": 3.0}");
      dim.send("{\"customer_id\": 7, \"name\": \"Ada\", \"email\": \"a@example.com\", \"city\": \"Bergen\", "
          + "\"tier\": \"gold\", \"updated_at\": \"2026-03-01T10:00:00Z\", \"op\": \"u\"}");
      dim.advanceWallClock(java.time.Duration.ofSeconds(1));

      List<EnrichmentDriver.EnrichedRecord> records = dim.enriched("orders_enriched");
      assertThat(records).extracting(r -> r.row().get("city").asText(), r -> r.revision("revision"))
          .containsExactly(org.assertj.core.groups.Tuple.tuple("Oslo", 1L),
              org.assertj.core.groups.Tuple.tuple("Bergen", 2L));
      assertThat(dim.enrichmentCounters("orders_enriched").corrected()).isEqualTo(1);
    }
  }
}
