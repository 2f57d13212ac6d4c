package io.dimstream.enrich;

import static io.dimstream.enrich.EnrichmentFixtures.order;
import static io.dimstream.enrich.EnrichmentFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import java.util.List;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class EnrichedAvroTest {
  private final DimensionSpec customers = EnrichmentFixtures.customers(EnrichmentFixtures.micros(60));
  private final EnrichmentSpec orders = EnrichmentFixtures.orders(customers, true, "0s");
  private final Version version = Scd2Fold.fold(customers, List.of(upsert(7, 10, "Ann", "Oslo", "gold"))).get(0);

  @Test
  void shouldFrameTheSameValuesAsTheJsonRowForAFoundVersion() {
    Enriched e = new Enriched(order(100, 7, 15, 9.5), version, 2);

    byte[] value = new EnrichedAvro(orders, 42).value(e);

    assertThat(WireFormatConsumer.schemaId(value)).isEqualTo(42);
    GenericRecord read = WireFormatConsumer.read(value, orders.enrichedAvroSchema());
    assertThat(WireFormatConsumer.values(read)).isEqualTo(new EnrichedRows(orders).values(e));
    assertThat(read.get("customer_found")).isEqualTo(true);
    assertThat(read.get("customer_valid_from")).isEqualTo(EnrichmentFixtures.at(10));
    assertThat(read.get("revision")).isEqualTo(2L);
  }

  @Test
  void shouldWriteNullsWhereTheDimensionHadNoVersion() {
    Enriched e = new Enriched(new Fact(java.util.Arrays.asList(101L, 8L, EnrichmentFixtures.at(15), null)), null, 1);

    GenericRecord read = WireFormatConsumer.read(new EnrichedAvro(orders, 42).value(e), orders.enrichedAvroSchema());

    assertThat(WireFormatConsumer.values(read)).isEqualTo(new EnrichedRows(orders).values(e));
    assertThat(read.get("amount")).isNull();
    assertThat(read.get("city")).isNull();
    assertThat(read.get("customer_sk")).isNull();
    assertThat(read.get("customer_found")).isEqualTo(false);
  }
}
