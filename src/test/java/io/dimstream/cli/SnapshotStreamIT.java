package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.KernelReader;
import io.dimstream.topology.SnapshotMarkers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full snapshot streamed through a real broker with three partitions: {@code produce --snapshot --at T} sends the
 * rows and one end-of-snapshot marker per partition; the running service closes, at T, the keys the snapshot left
 * out, and the table read back by Delta Kernel shows it.
 */
class SnapshotStreamIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final String DAY1 = "2026-01-01T00:00:00Z";
  private static final String DAY2 = "2026-01-02T00:00:00Z";

  @TempDir
  Path dir;

  @Test
  void shouldCloseTheKeysAStreamedSnapshotLeftOutOnEveryPartition() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_snapshot", "  partitions: 3\n");

    List<String> day1 = new ArrayList<>();
    List<String> day2 = new ArrayList<>();
    for (int id = 1; id <= 30; id++) {
      day1.add(row(id, "Oslo", DAY1));
      if (id <= 20) {
        day2.add(row(id, id <= 5 ? "Rome" : "Oslo", null)); // 1..5 moved, 6..20 unchanged, 21..30 left out
      }
    }
    Path day1File = Files.write(dir.resolve("day1.jsonl"), day1);
    Path day2File = Files.write(dir.resolve("day2.jsonl"), day2);

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, day1File, service.kafka())).isEqualTo(30);
      assertThat(ProduceCommand.produce(spec, day2File, service.kafka(), new SnapshotProduce(spec, DAY2)))
          .isEqualTo(20);
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec,
          "dimstream-" + spec.name()) && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()),
          Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();

      List<ConsumerRecord<byte[], byte[]>> changes = TopicReader.readAll(service.kafka(), spec.topics().changes(), true)
          .kept();
      List<ConsumerRecord<byte[], byte[]>> markers = changes.stream()
          .filter(r -> r.headers().lastHeader(SnapshotMarkers.CONTROL) != null).toList();
      assertThat(markers).extracting(ConsumerRecord::partition).containsExactlyInAnyOrder(0, 1, 2);
      assertThat(TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept()).isEmpty();
    }

    List<Version> table = KernelReader.latest(dir.resolve("table"), spec);
    assertThat(table.stream().filter(Version::isCurrent).map(v -> (Long) v.key().values().get(0)).sorted())
        .containsExactlyElementsOf(range(1, 20));
    assertThat(table).filteredOn(v -> !v.isCurrent()).extracting(SnapshotStreamIT::closedAt)
        .hasSize(15).containsOnly(DAY2); // 1..5 closed by their new row, 21..30 by the end of the snapshot
    assertThat(table).filteredOn(Version::isCurrent).filteredOn(v -> "Rome".equals(v.attributes().get(2)))
        .extracting(v -> (Long) v.key().values().get(0)).containsExactlyInAnyOrderElementsOf(range(1, 5));
  }

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      out.add(i);
    }
    return out;
  }

  private static String closedAt(Version v) {
    return Instant.EPOCH.plus(v.validTo().first(), ChronoUnit.MICROS).toString();
  }

  private static String row(long id, String city, String at) {
    return "{\"customer_id\": " + id + ", \"name\": \"N" + id + "\", \"email\": \"c" + id + "@example.com\", "
        + "\"city\": \"" + city + "\", \"tier\": \"gold\"" + (at == null ? "" : ", \"updated_at\": \"" + at + "\"")
        + "}";
  }
}
