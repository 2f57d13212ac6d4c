package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.topology.SnapshotMarkers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The records {@code produce --snapshot --at T} sends, and the command lines it refuses. */
class SnapshotProduceTest {
  private static final DimensionSpec SPEC = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
  private static final String AT = "2026-03-02T00:00:00Z";

  @Test
  void shouldGiveRowsWithoutASequenceTheSnapshotsAndTagEveryRow() {
    SnapshotProduce snap = new SnapshotProduce(SPEC, AT);
    ProducerRecord<byte[], byte[]> row = snap.row("{\"customer_id\": 1, \"city\": \"Oslo\"}"
        .getBytes(StandardCharsets.UTF_8));
    assertThat(new String(row.value(), StandardCharsets.UTF_8)).contains("\"updated_at\":\"" + AT + "\"");
    assertThat(header(row, SnapshotMarkers.SNAPSHOT_ID)).isEqualTo(snap.id());
    assertThat(header(row, SnapshotMarkers.SNAPSHOT_AT)).isEqualTo(AT);
    assertThat(row.headers().lastHeader(SnapshotMarkers.CONTROL)).isNull();

    ProducerRecord<byte[], byte[]> own = snap.row("{\"customer_id\": 2, \"updated_at\": \"2026-03-01T00:00:00Z\"}"
        .getBytes(StandardCharsets.UTF_8));
    assertThat(new String(own.value(), StandardCharsets.UTF_8)).contains("2026-03-01T00:00:00Z").doesNotContain(AT);
  }

  @Test
  void shouldAddressOneMarkerToEachPartition() {
    SnapshotProduce snap = new SnapshotProduce(SPEC, AT);
    ProducerRecord<byte[], byte[]> m = snap.marker(2, 3);
    assertThat(m.partition()).isEqualTo(2);
    assertThat(m.key()).isNull();
    assertThat(header(m, SnapshotMarkers.CONTROL)).isEqualTo(SnapshotMarkers.END_OF_SNAPSHOT);
    assertThat(header(m, SnapshotMarkers.PARTITION)).isEqualTo("2");
    assertThat(header(m, SnapshotMarkers.PARTITIONS)).isEqualTo("3");
    assertThat(new String(m.value(), StandardCharsets.UTF_8)).startsWith("{\"dimstream_control\":\"end-of-snapshot\"");
  }

  @Test
  void shouldRefuseAnAtThatIsNoSequenceValue() {
    assertThatThrownBy(() -> new SnapshotProduce(SPEC, "yesterday")).isInstanceOf(CliErrors.UsageError.class)
        .hasMessageContaining("'updated_at'").hasMessageContaining("Fix:");
  }

  @Test
  void shouldRefuseSnapshotWithoutAt() {
    int code = Main.commandLine().execute("produce", "--config", "examples/customers.yaml", "--input",
        "examples/customers-changes.jsonl", "--snapshot", "--bootstrap-servers", "127.0.0.1:1");
    assertThat(code).isEqualTo(Main.USAGE_ERROR);
  }

  private static String header(ProducerRecord<byte[], byte[]> r, String name) {
    return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
