package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.change.RejectReason;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Streamed full snapshots: rows with snapshot headers, then end-of-snapshot markers. */
class SnapshotTopologyTest {
  private static final DimensionSpec SPEC = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
  private static final String DAY1 = "2026-01-01T00:00:00Z";
  private static final String DAY2 = "2026-01-02T00:00:00Z";
  private static final String DAY3 = "2026-01-03T00:00:00Z";

  private TopologyRunner runner;
  private TestInputTopic<byte[], byte[]> changes;

  @BeforeEach
  void start() {
    runner = TopologyRunner.of(SPEC);
    changes = runner.driver().createInputTopic(SPEC.topics().changes(), new ByteArraySerializer(),
        new ByteArraySerializer());
    send(new RecordHeaders(), row(1, "Oslo", DAY1), row(2, "Paris", DAY1), row(3, "Nice", DAY1));
  }

  @AfterEach
  void stop() {
    runner.close();
  }

  @Test
  void shouldCloseTheKeysTheSnapshotDidNotCarryWhenItsMarkerArrives() {
    send(SnapshotMarkers.rowHeaders("s1", DAY2), row(1, "Oslo", DAY2), row(2, "Rome", DAY2));
    assertThat(open()).containsExactly("1 Oslo", "2 Rome", "3 Nice"); // nothing closed before the marker

    marker("s1", DAY2, 0, 1);

    assertThat(runner.history()).extracting(SnapshotTopologyTest::text).containsExactly(
        "1 Oslo [2026-01-01T00:00:00Z, open)",
        "2 Paris [2026-01-01T00:00:00Z, 2026-01-02T00:00:00Z)",
        "2 Rome [2026-01-02T00:00:00Z, open)",
        "3 Nice [2026-01-01T00:00:00Z, 2026-01-02T00:00:00Z)");
    assertThat(runner.rejections()).isEmpty();
  }

  @Test
  void shouldWaitForTheMarkerOfEveryPartitionAndIgnoreRepeats() {
    send(SnapshotMarkers.rowHeaders("s1", DAY2), row(1, "Oslo", DAY2));
    marker("s1", DAY2, 0, 2);
    marker("s1", DAY2, 0, 2);
    assertThat(open()).as("one of two markers: the snapshot has not ended").containsExactly("1 Oslo", "2 Paris",
        "3 Nice");
    marker("s1", DAY2, 1, 2);
    assertThat(open()).containsExactly("1 Oslo");
    marker("s1", DAY2, 1, 2);
    assertThat(open()).containsExactly("1 Oslo");
  }

  @Test
  void shouldLetANewerSnapshotSupersedeOneThatHasNotEnded() {
    send(SnapshotMarkers.rowHeaders("s1", DAY2), row(1, "Oslo", DAY2));
    send(SnapshotMarkers.rowHeaders("s2", DAY3), row(2, "Paris", DAY3));
    marker("s1", DAY2, 0, 1);
    assertThat(open()).as("the superseded snapshot closes nothing").containsExactly("1 Oslo", "2 Paris", "3 Nice");
    marker("s2", DAY3, 0, 1);
    assertThat(open()).containsExactly("2 Paris");
    assertThat(runner.history()).filteredOn(v -> !v.isCurrent()).extracting(SnapshotTopologyTest::text)
        .containsExactly("1 Oslo [2026-01-01T00:00:00Z, 2026-01-03T00:00:00Z)",
            "3 Nice [2026-01-01T00:00:00Z, 2026-01-03T00:00:00Z)");
  }

  @Test
  void shouldIgnoreASnapshotOlderThanOneAlreadySeen() {
    send(SnapshotMarkers.rowHeaders("s2", DAY3), row(1, "Oslo", DAY3), row(2, "Paris", DAY3));
    marker("s2", DAY3, 0, 1);
    assertThat(open()).containsExactly("1 Oslo", "2 Paris");
    send(SnapshotMarkers.rowHeaders("s1", DAY2), row(1, "Oslo", DAY2));
    marker("s1", DAY2, 0, 1);
    assertThat(open()).as("the older snapshot's marker closes nothing").containsExactly("1 Oslo", "2 Paris");
  }

  @Test
  void shouldLeaveOpenAKeyThatChangedAfterTheSnapshotWasTaken() {
    send(SnapshotMarkers.rowHeaders("s1", DAY2), row(1, "Oslo", DAY2));
    send(new RecordHeaders(), row(3, "Lyon", "2026-01-05T00:00:00Z"));
    marker("s1", DAY2, 0, 1);
    assertThat(open()).containsExactly("1 Oslo", "3 Lyon");
  }

  @Test
  void shouldForgetWhichKeysAnEndedSnapshotCarriedAndStillCloseWhatTheNextOneLeavesOut() {
    send(SnapshotMarkers.rowHeaders("s1", DAY2), row(1, "Oslo", DAY2), row(2, "Rome", DAY2));
    assertThat(snapshotStoreEntries()).as("two carried keys and the progress").isEqualTo(3);

    marker("s1", DAY2, 0, 1);

    assertThat(open()).containsExactly("1 Oslo", "2 Rome");
    assertThat(snapshotStoreEntries()).as("only the progress is left").isEqualTo(1);
    send(SnapshotMarkers.rowHeaders("s1", DAY2), row(2, "Rome", DAY2));
    assertThat(snapshotStoreEntries()).as("a row of the ended snapshot adds nothing").isEqualTo(1);

    send(SnapshotMarkers.rowHeaders("s2", DAY3), row(1, "Oslo", DAY3));
    marker("s2", DAY3, 0, 1);

    assertThat(open()).as("key 2, carried by s1 only, is closed by s2").containsExactly("1 Oslo");
    assertThat(snapshotStoreEntries()).isEqualTo(1);
  }

  @Test
  void shouldForgetTheKeysOfASupersededSnapshotWhenTheNewerOneEnds() {
    send(SnapshotMarkers.rowHeaders("s1", DAY2), row(1, "Oslo", DAY2), row(3, "Nice", DAY2));
    send(SnapshotMarkers.rowHeaders("s2", DAY3), row(2, "Paris", DAY3));
    assertThat(snapshotStoreEntries()).isEqualTo(4);

    marker("s2", DAY3, 0, 1);

    assertThat(open()).as("keys 1 and 3 were carried by the superseded s1 only").containsExactly("2 Paris");
    assertThat(snapshotStoreEntries()).isEqualTo(1);
  }

  private long snapshotStoreEntries() {
    org.apache.kafka.streams.state.KeyValueStore<Object, Object> store =
        runner.driver().getKeyValueStore(DimensionTopology.SNAPSHOT_STORE);
    long n = 0;
    try (var it = store.all()) {
      while (it.hasNext()) {
        it.next();
        n++;
      }
    }
    return n;
  }

  @Test
  void shouldSendAnUnreadableControlRecordToTheDeadLetterTopic() {
    Headers h = new RecordHeaders();
    h.add(SnapshotMarkers.CONTROL, SnapshotMarkers.END_OF_SNAPSHOT.getBytes(StandardCharsets.UTF_8));
    changes.pipeInput(new TestRecord<>(null, "{}".getBytes(StandardCharsets.UTF_8), h));
    Headers badAt = SnapshotMarkers.markerHeaders("s1", "yesterday", 0, 1);
    changes.pipeInput(new TestRecord<>(null, "{}".getBytes(StandardCharsets.UTF_8), badAt));
    assertThat(runner.rejections()).extracting(TopologyRunner.Rejection::reason)
        .containsExactly(RejectReason.BAD_CONTROL_RECORD, RejectReason.BAD_CONTROL_RECORD);
    assertThat(open()).containsExactly("1 Oslo", "2 Paris", "3 Nice");
  }

  private void send(Headers headers, String... rows) {
    for (String r : rows) {
      changes.pipeInput(new TestRecord<>(null, r.getBytes(StandardCharsets.UTF_8), headers));
    }
  }

  private void marker(String id, String at, int partition, int partitions) {
    changes.pipeInput(new TestRecord<>(null, SnapshotMarkers.markerValue(id, at, partition, partitions),
        SnapshotMarkers.markerHeaders(id, at, partition, partitions)));
  }

  private java.util.List<String> open() {
    return runner.history().stream().filter(Version::isCurrent)
        .map(v -> v.key().values().get(0) + " " + v.attributes().get(2)).toList();
  }

  private static String row(long id, String city, String at) {
    return "{\"customer_id\": " + id + ", \"name\": \"N" + id + "\", \"email\": \"c" + id + "@example.com\", "
        + "\"city\": \"" + city + "\", \"tier\": \"gold\", \"updated_at\": \"" + at + "\"}";
  }

  private static String text(Version v) {
    return v.key().values().get(0) + " " + v.attributes().get(2) + " [" + micros(v.validFrom().first()) + ", "
        + (v.isCurrent() ? "open" : micros(v.validTo().first())) + ")";
  }

  private static String micros(long epochMicros) {
    return Instant.EPOCH.plus(epochMicros, ChronoUnit.MICROS).toString();
  }
}
