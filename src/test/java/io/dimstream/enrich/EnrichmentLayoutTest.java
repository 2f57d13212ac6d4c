package io.dimstream.enrich;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnrichmentLayoutTest {
  private static final EnrichmentLayout KEPT = new EnrichmentLayout(List.of("city", "tier"),
      List.of(new Column("order_id", ColumnType.LONG), new Column("customer_id", ColumnType.LONG),
          new Column("ordered_at", ColumnType.TIMESTAMP), new Column("qty", ColumnType.INT),
          new Column("amount", ColumnType.decimal(10, 2))),
      List.of("order_id"), "ordered_at", List.of("customer_id"));

  @Test
  void shouldComeBackFromItsRecord() {
    assertThat(EnrichmentLayout.parse(KEPT.toBytes())).isEqualTo(KEPT);
    assertThatThrownBy(() -> EnrichmentLayout.parse("{\"attributes\": []}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an enrichment layout record");
  }

  @Test
  void shouldFollowOtherAttributesAndWidenedFactColumns() {
    EnrichmentLayout now = new EnrichmentLayout(List.of("segment", "city"),
        List.of(new Column("order_id", ColumnType.LONG), new Column("customer_id", ColumnType.LONG),
            new Column("ordered_at", ColumnType.TIMESTAMP), new Column("qty", ColumnType.LONG),
            new Column("amount", ColumnType.decimal(12, 2))),
        List.of("order_id"), "ordered_at", List.of("customer_id"));

    assertThat(KEPT.factsUnreadableAs(now)).isNull();
  }

  @Test
  void shouldSayWhatTheKeptFactsCannotFollow() {
    assertThat(KEPT.factsUnreadableAs(withColumn(3, new Column("qty", ColumnType.DOUBLE))))
        .contains("'qty' was int and is now double");
    assertThat(KEPT.factsUnreadableAs(withColumn(4, new Column("amount", ColumnType.decimal(12, 3)))))
        .contains("'amount' was decimal(10,2) and is now decimal(12,3)");
    assertThat(KEPT.factsUnreadableAs(withColumn(3, new Column("quantity", ColumnType.INT))))
        .contains("[order_id, customer_id, ordered_at, qty, amount]")
        .contains("[order_id, customer_id, ordered_at, quantity, amount]");
    assertThat(KEPT.factsUnreadableAs(new EnrichmentLayout(KEPT.attributes(), KEPT.factColumns(),
        List.of("order_id", "customer_id"), "ordered_at", List.of("customer_id"))))
        .contains("kept by key [order_id], time ordered_at and join [customer_id], now [order_id, customer_id]");
  }

  private static EnrichmentLayout withColumn(int at, Column c) {
    List<Column> columns = new java.util.ArrayList<>(KEPT.factColumns());
    columns.set(at, c);
    return new EnrichmentLayout(KEPT.attributes(), columns, KEPT.factKey(), KEPT.time(), KEPT.join());
  }
}
