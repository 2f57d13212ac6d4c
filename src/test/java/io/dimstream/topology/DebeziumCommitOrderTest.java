package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Debezium events ordered as the database committed them, and the tombstone that follows each delete. */
class DebeziumCommitOrderTest {
  private static final String SPEC = """
      name: customers
      format: debezium-json
      debezium: {connector: postgresql}     # sequence: [source.lsn]
      columns: {customer_id: long, city: string}
      key: [customer_id]
      """;

  @TempDir
  Path dir;

  private DimensionSpec spec() throws IOException {
    Path file = dir.resolve("customers.yaml");
    Files.writeString(file, SPEC);
    return DimensionSpecLoader.load(file);
  }

  /** One Postgres change event; {@code tsMs} is the event's own time, {@code lsn} where it was committed. */
  private static String event(String op, String city, long lsn, long tsMs) {
    String row = "{\"customer_id\": 7, \"city\": " + (city == null ? "null" : "\"" + city + "\"") + "}";
    return "{\"op\": \"" + op + "\", \"ts_ms\": " + tsMs + ", "
        + ("d".equals(op) ? "\"before\": " + row + ", \"after\": null" : "\"before\": null, \"after\": " + row)
        + ", \"source\": {\"connector\": \"postgresql\", \"lsn\": " + lsn + ", \"ts_ms\": " + tsMs + "}}";
  }

  @Test
  void shouldOrderTwoCommitsInOneMillisecondByTheirLsn() throws IOException {
    try (TopologyRunner h = TopologyRunner.builder(spec()).stateDir(dir.resolve("state")).build()) {
      // both committed in the same millisecond; they arrive out of commit order
      h.send(event("u", "Bergen", 2_000, 1_772_352_000_000L), event("c", "Oslo", 1_000, 1_772_352_000_000L));

      List<Version> history = h.history();

      assertThat(history).extracting(v -> v.attributes().get(0)).containsExactly("Oslo", "Bergen");
      assertThat(history.get(1).validTo()).isNull();
    }
  }

  @Test
  void shouldKeepTheLastCommittedRowCurrentWhenTheEventTimeLags() throws IOException {
    try (TopologyRunner h = TopologyRunner.builder(spec()).stateDir(dir.resolve("state")).build()) {
      // the later commit carries an older ts_ms (clock skew, or a long transaction): the LSN decides
      h.send(event("c", "Oslo", 1_000, 1_772_352_000_500L), event("u", "Bergen", 2_000, 1_772_352_000_100L));

      List<Version> current = h.history().stream().filter(v -> v.validTo() == null).toList();

      assertThat(current).extracting(v -> v.attributes().get(0)).containsExactly("Bergen");
    }
  }

  @Test
  void shouldSkipTheTombstoneAfterADeleteAndCountIt() throws IOException {
    try (TopologyRunner h = TopologyRunner.builder(spec()).stateDir(dir.resolve("state")).build()) {
      TestInputTopic<byte[], byte[]> changes = h.driver().createInputTopic(h.spec().topics().changes(),
          new ByteArraySerializer(), new ByteArraySerializer());
      byte[] key = "{\"customer_id\": 7}".getBytes(StandardCharsets.UTF_8);
      changes.pipeInput(key, event("c", "Oslo", 1_000, 1_772_352_000_000L).getBytes(StandardCharsets.UTF_8));
      changes.pipeInput(key, event("d", "Oslo", 2_000, 1_772_352_001_000L).getBytes(StandardCharsets.UTF_8));
      changes.pipeInput(key, (byte[]) null); // Debezium's default: tombstones.on.delete=true

      List<Version> history = h.history();

      assertThat(h.rejections()).isEmpty();
      assertThat(history).hasSize(1);
      assertThat(history.get(0).validTo()).isNotNull();
      assertThat(tombstonesSkipped(h)).isEqualTo(1.0);
    }
  }

  private static double tombstonesSkipped(TopologyRunner h) {
    double total = 0;
    for (var e : h.driver().metrics().entrySet()) {
      MetricName n = e.getKey();
      if (n.group().equals("dimstream") && n.name().equals("tombstones-skipped-total")) {
        total += ((Number) ((Metric) e.getValue()).metricValue()).doubleValue();
      }
    }
    return total;
  }
}
