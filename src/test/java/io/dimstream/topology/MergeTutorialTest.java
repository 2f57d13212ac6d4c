package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worked example of the classic Delta Lake MERGE INTO SCD2 tutorial: batches of order status changes, with an
 * unchanged row and an old row sent late.
 */
class MergeTutorialTest {
  static final DimensionSpec ORDERS = DimensionSpec.builder("orders")
      .column("order_id", ColumnType.LONG)
      .column("status", ColumnType.STRING)
      .column("updated_at", ColumnType.TIMESTAMP)
      .key("order_id").sequence("updated_at")
      .build();

  @TempDir
  Path stateDir;

  static String order(long id, String status, String at) {
    return "{\"order_id\":" + id + ",\"status\":\"" + status + "\",\"updated_at\":\"" + at + "\"}";
  }

  static Version v(long id, String status, String from, String to) {
    return new Version(BusinessKey.of(id), seq(from), to == null ? null : seq(to), List.of(status));
  }

  static Sequence seq(String iso) {
    return Sequence.of(ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(iso)));
  }

  static List<String> described(List<TopologyRunner.Emitted> emitted) {
    return emitted.stream().map(e -> e.kind().wireName() + " " + e.id().key() + "@"
        + Instant.EPOCH.plus(e.id().validFrom().first(), ChronoUnit.MICROS)).toList();
  }

  @Test
  void shouldApplyTheTutorialBatchesWithoutDuplicatesOrLostRows() {
    try (TopologyRunner h = TopologyRunner.builder(ORDERS).stateDir(stateDir).build()) {
      h.send(order(1001, "shipped", "2026-10-02T08:00:00Z"),
          order(1002, "cancelled", "2026-10-03T09:00:00Z"),
          order(1004, "placed", "2026-09-28T10:00:00Z"),
          order(1005, "placed", "2026-09-29T11:00:00Z"));
      h.emitted();

      String[] batch = {
          order(1001, "shipped", "2026-10-02T08:00:00Z"),   // unchanged
          order(1002, "placed", "2026-10-01T10:02:00Z"),    // an old row, sent late
          order(1004, "shipped", "2026-10-04T08:30:00Z"),
          order(1005, "cancelled", "2026-10-04T10:00:00Z"),
          order(1006, "placed", "2026-10-04T11:20:00Z")};
      h.send(batch);
      assertThat(described(h.emitted())).containsExactly(
          "open 1002@2026-10-01T10:02:00Z",
          "close 1004@2026-09-28T10:00:00Z", "open 1004@2026-10-04T08:30:00Z",
          "close 1005@2026-09-29T11:00:00Z", "open 1005@2026-10-04T10:00:00Z",
          "open 1006@2026-10-04T11:20:00Z");

      h.send(batch);
      assertThat(h.emitted()).as("the second run of the same batch").isEmpty();

      List<Version> history = h.history();
      assertThat(history.stream().filter(Version::isCurrent))
          .map(x -> x.key() + " " + x.attributes().get(0))
          .containsExactly("1001 shipped", "1002 cancelled", "1004 shipped", "1005 cancelled", "1006 placed");
      assertThat(history.stream().filter(x -> x.key().equals(BusinessKey.of(1002L)))).containsExactly(
          v(1002, "placed", "2026-10-01T10:02:00Z", "2026-10-03T09:00:00Z"),
          v(1002, "cancelled", "2026-10-03T09:00:00Z", null));

      h.send(order(1004, "delivered", "2026-10-05T09:00:00Z"),
          order(1004, "returned", "2026-10-06T17:30:00Z"),
          order(1007, "placed", "2026-10-05T09:00:00Z"),
          order(1007, "shipped", "2026-10-05T15:00:00Z"));

      List<Version> after = h.history();
      assertThat(after.stream().filter(x -> x.key().equals(BusinessKey.of(1004L)))).containsExactly(
          v(1004, "placed", "2026-09-28T10:00:00Z", "2026-10-04T08:30:00Z"),
          v(1004, "shipped", "2026-10-04T08:30:00Z", "2026-10-05T09:00:00Z"),
          v(1004, "delivered", "2026-10-05T09:00:00Z", "2026-10-06T17:30:00Z"),
          v(1004, "returned", "2026-10-06T17:30:00Z", null));
      assertThat(after.stream().filter(x -> x.key().equals(BusinessKey.of(1007L)))).containsExactly(
          v(1007, "placed", "2026-10-05T09:00:00Z", "2026-10-05T15:00:00Z"),
          v(1007, "shipped", "2026-10-05T15:00:00Z", null));
      assertThat(h.rejections()).isEmpty();
    }
  }
}
