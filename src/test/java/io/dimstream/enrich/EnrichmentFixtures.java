package io.dimstream.enrich;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/** A customers dimension and an orders enrichment over it, built in code for the enrichment tests. */
public final class EnrichmentFixtures {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();

  private EnrichmentFixtures() {}

  /** customers: key customer_id, sequence updated_at (timestamp), attributes name (type 1), city and tier (tracked). */
  /**
   * Kafka settings for a topology on a {@code TopologyTestDriver}: no broker holds the versions topic, the driver is
   * fed the whole history, so no enrichment reads the versions written before it.
   */
  public static final java.util.Map<String, String> WITHOUT_BROKER =
      java.util.Map.of(io.dimstream.enrich.streams.EnrichmentTopology.FILL_VERSIONS_CONFIG, "false");

  public static DimensionSpec customers(long horizonMicros) {
    return DimensionSpec.builder("customers")
        .column("customer_id", "long").column("name", "string").column("city", "string").column("tier", "string")
        .column("updated_at", "timestamp").column("op", "string")
        .key("customer_id").sequence("updated_at").track("city", "tier")
        .delete(new DeleteRule.ColumnEquals("op", "d"))
        .latenessHorizon(horizonMicros)
        .build();
  }

  /** orders joined with customers on customer_id, adding city and tier, and the version id and valid_from if asked. */
  public static EnrichmentSpec orders(DimensionSpec customers, boolean showVersion, String grace) {
    return orders(customers, showVersion, grace, "json");
  }

  /** As above, the orders sent in {@code format} (json, avro, debezium-json). */
  public static EnrichmentSpec orders(DimensionSpec customers, boolean showVersion, String grace, String format) {
    String yaml = """
        name: orders_enriched
        dimension: customers.yaml
        facts:
          topic: orders
          format: %s
          columns: {order_id: long, customer_id: long, ordered_at: timestamp, amount: double}
          key: [order_id]
          time: ordered_at
        join: {customer_id: customer_id}
        attributes: [city, {tier: customer_tier}]
        found_column: customer_found
        grace: %s
        """.formatted(format, grace) + (showVersion ? "version_id: customer_sk\nvalid_from: customer_valid_from\n" : "");
    try {
      return EnrichmentSpecLoader.parse(YAML.readTree(yaml), null, customers);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static long micros(int seconds) {
    return seconds * 1_000_000L;
  }

  static Instant at(int seconds) {
    return Instant.ofEpochSecond(seconds);
  }

  static ChangeEvent upsert(long customer, int second, String name, String city, String tier) {
    return ChangeEvent.upsert(BusinessKey.of(customer), Sequence.of(micros(second)), Arrays.asList(name, city, tier));
  }

  static ChangeEvent delete(long customer, int second) {
    return ChangeEvent.delete(BusinessKey.of(customer), Sequence.of(micros(second)));
  }

  static Fact order(long orderId, long customer, int second, double amount) {
    return new Fact(List.of(orderId, customer, at(second), amount));
  }

  /** An enriched record's value as the JSON object it is. */
  public static ObjectNode enrichedRow(byte[] value) {
    try {
      return (ObjectNode) JSON.readTree(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A copy of an enriched row without its revision: what a batch join's row (revision 1) is compared with. */
  public static ObjectNode withoutRevision(ObjectNode row) {
    ObjectNode copy = row.deepCopy();
    copy.remove("revision");
    return copy;
  }
}
