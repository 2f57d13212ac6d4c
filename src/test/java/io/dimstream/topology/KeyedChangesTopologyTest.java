package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Named.named;

import io.dimstream.change.RejectReason;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.Topics;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code topics.changes_keyed_by_business_key: true}: one sub-topology without the repartition hop, the same
 * history as the repartitioned topology, and every record in another partition than its key's sent to the DLQ as
 * {@code wrong-partition} without touching any history. The driver reads every record from partition 0; the
 * partition count it is told ({@link DimensionTopology#CHANGES_PARTITIONS_CONFIG}) decides which keys belong there.
 */
class KeyedChangesTopologyTest {
  static final DimensionSpec REPARTITIONED = customers(false);
  static final DimensionSpec KEYED = customers(true);

  @TempDir
  Path dir;

  static DimensionSpec customers(boolean keyed) {
    return DimensionSpec.builder("customers")
        .column("customer_id", ColumnType.LONG)
        .column("name", ColumnType.STRING)
        .column("city", ColumnType.STRING)
        .column("tier", ColumnType.STRING)
        .column("seq", ColumnType.LONG)
        .column("op", ColumnType.STRING)
        .key("customer_id").sequence("seq").track("city", "tier")
        .delete(new DeleteRule.ColumnEquals("op", "d"))
        .topics(new Topics("customers.changes", "customers.versions", "customers.dlq", keyed))
        .build();
  }

  static Stream<Arguments> streams() {
    return Stream.of(
        Arguments.of(named("late", ChangeStreams.random(KEYED, 2).keys(30).events(600).late(0.2))),
        Arguments.of(named("duplicates and deletes", ChangeStreams.random(KEYED, 3).keys(30).events(600)
            .duplicates(0.2).deletes(0.1))),
        Arguments.of(named("late, duplicate, delete, no-change, same sequence", ChangeStreams.random(KEYED, 5)
            .keys(100).events(1500).late(0.1).duplicates(0.05).deletes(0.05).noChange(0.1).sameSequence(0.02))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("streams")
  void shouldGiveTheSameHistoryAsTheRepartitionedTopology(ChangeStreams generator) {
    ChangeStreams.GeneratedStream stream = generator.generate();
    List<Version> keyed = replay(KEYED, stream.values());
    List<Version> repartitioned = replay(REPARTITIONED, stream.values());

    assertThat(keyed).isEqualTo(repartitioned).isEqualTo(Scd2Fold.fold(KEYED, stream.events()));
  }

  @Test
  void shouldSendARecordOfAnotherPartitionToTheDeadLetterTopicAsWrongPartition() {
    long home = idInPartition(0, 2);
    long elsewhere = idInPartition(1, 2);
    try (TopologyRunner runner = keyedRunner(2)) {
      runner.send(DimensionTopologyTest.up(home, 10, "Ann", "Oslo", "gold"),
          DimensionTopologyTest.up(elsewhere, 10, "Bob", "Rome", "silver"));
      runner.send(DimensionTopologyTest.up(home, 20, "Ann", "Rome", "gold"),
          DimensionTopologyTest.up(elsewhere, 5, "Bob", "Nice", "silver"), DimensionTopologyTest.del(elsewhere, 30));

      assertThat(runner.history()).extracting(v -> v.key().values().get(0)).containsExactly(home, home);
      assertThat(stores(runner)).as("no state of the misplaced key").allSatisfy((k, v) -> assertThat(k)
          .doesNotContain("[" + elsewhere + "]")).isNotEmpty();
      List<TopologyRunner.Rejection> dlq = runner.rejections();
      assertThat(dlq).extracting(TopologyRunner.Rejection::reason).containsOnly(RejectReason.WRONG_PARTITION)
          .hasSize(3);
      assertThat(dlq.get(0).valueText()).isEqualTo(DimensionTopologyTest.up(elsewhere, 10, "Bob", "Rome", "silver"));
      assertThat(dlq.get(0).detail()).contains("[" + elsewhere + "]", "belongs in partition 1 of the 2 partitions",
          "arrived in partition 0", "Fix:", "dimstream produce");
    }
  }

  @Test
  void shouldBuildOneSubTopologyWithoutTheRepartitionTopicWhenTheChangesTopicIsKeyed() {
    TopologyDescription keyed = describe(KEYED);

    assertThat(keyed.subtopologies()).hasSize(1);
    assertThat(keyed.toString()).doesNotContain("repartition")
        .contains(DimensionTopology.DECODE_PROCESSOR, DimensionTopology.SCD2_PROCESSOR, "customers.versions");
  }

  @Test
  void shouldKeepTheRepartitionedTopologyWhenTheOptionIsOff() {
    TopologyDescription off = describe(REPARTITIONED);

    assertThat(off.subtopologies()).hasSize(2);
    assertThat(off.toString()).contains("customers-by-key-repartition");
    assertThat(off.toString()).isEqualTo(describe(DimensionTopologyTest.CUSTOMERS).toString());
  }

  @Test
  void shouldRefuseToStartAKeyedTopologyWithoutThePartitionCount() {
    assertThatThrownBy(() -> {
      try (TopologyRunner runner = TopologyRunner.builder(KEYED)
          .streamsConfig(Map.of(DimensionTopology.CHANGES_PARTITIONS_CONFIG, "")).build()) {
        runner.send(DimensionTopologyTest.up(1, 10, "Ann", "Oslo", "gold"));
      }
    }).hasStackTraceContaining("topics.changes_keyed_by_business_key")
        .hasStackTraceContaining(DimensionTopology.CHANGES_PARTITIONS_CONFIG);
  }

  @Test
  void shouldEndASnapshotWithTheMarkerOfTheTasksOwnPartition() throws Exception {
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        + "\ntopics: {changes_keyed_by_business_key: true}\n";
    Path specFile = Files.writeString(dir.resolve("customers.yaml"), yaml);
    DimensionSpec spec = DimensionSpecLoader.load(specFile);
    long a = idInPartition(0, 2);
    long b = idInPartition(0, 2, a + 1);
    try (TopologyRunner runner = TopologyRunner.builder(spec)
        .streamsConfig(Map.of(DimensionTopology.CHANGES_PARTITIONS_CONFIG, "2")).build()) {
      var changes = runner.driver().createInputTopic(spec.topics().changes(),
          new org.apache.kafka.common.serialization.ByteArraySerializer(),
          new org.apache.kafka.common.serialization.ByteArraySerializer());
      send(changes, new RecordHeaders(), row(a, "Oslo", "2026-01-01T00:00:00Z"), row(b, "Nice", "2026-01-01T00:00:00Z"));
      send(changes, SnapshotMarkers.rowHeaders("s1", "2026-01-02T00:00:00Z"), row(a, "Oslo", "2026-01-02T00:00:00Z"));
      assertThat(runner.history()).filteredOn(Version::isCurrent).hasSize(2);

      // the marker of partition 0 of 2: the other partition's marker goes to the other partition's task only
      changes.pipeInput(new TestRecord<>(null, SnapshotMarkers.markerValue("s1", "2026-01-02T00:00:00Z", 0, 2),
          SnapshotMarkers.markerHeaders("s1", "2026-01-02T00:00:00Z", 0, 2)));

      assertThat(runner.history()).filteredOn(Version::isCurrent).extracting(v -> v.key().values().get(0))
          .containsExactly(a);
      assertThat(runner.history()).filteredOn(v -> v.key().values().get(0).equals(b))
          .extracting(v -> Instant.EPOCH.plus(v.validTo().first(), ChronoUnit.MICROS).toString())
          .containsExactly("2026-01-02T00:00:00Z");
      assertThat(runner.rejections()).isEmpty();
    }
  }

  /** The canonical key bytes README.md documents for a one-column long key: the JSON array {@code [id]}. */
  private static byte[] canonical(long id) {
    return ("[" + id + "]").getBytes(StandardCharsets.UTF_8);
  }

  /** The first id from {@code from} that Kafka's own producer partitioner puts in {@code partition}. */
  private static long idInPartition(int partition, int partitions, long from) {
    for (long id = from; ; id++) {
      if (BuiltInPartitioner.partitionForKey(canonical(id), partitions) == partition) {
        return id;
      }
    }
  }

  private static long idInPartition(int partition, int partitions) {
    return idInPartition(partition, partitions, 1);
  }

  private static TopologyRunner keyedRunner(int partitions) {
    return TopologyRunner.builder(KEYED)
        .streamsConfig(Map.of(DimensionTopology.CHANGES_PARTITIONS_CONFIG, Integer.toString(partitions))).build();
  }

  private static List<Version> replay(DimensionSpec spec, List<byte[]> values) {
    List<TopologyRunner.Rejection> rejected = new ArrayList<>();
    List<Version> history = TopologyRunner.replay(spec, values.iterator(), rejected::add).history();
    assertThat(rejected).isEmpty();
    return history;
  }

  /** Every entry of the event store, as text. */
  private static Map<String, String> stores(TopologyRunner runner) {
    Map<String, String> out = new java.util.TreeMap<>();
    for (String name : List.of(DimensionTopology.EVENT_STORE)) {
      KeyValueStore<Bytes, byte[]> store = runner.driver().getKeyValueStore(name);
      try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
        it.forEachRemaining(kv -> out.put(name + " " + kv.key, new String(kv.value, StandardCharsets.ISO_8859_1)));
      }
    }
    return out;
  }

  private static TopologyDescription describe(DimensionSpec spec) {
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, spec);
    return builder.build().describe();
  }

  private static void send(org.apache.kafka.streams.TestInputTopic<byte[], byte[]> changes, Headers headers,
      String... rows) {
    List<String> all = new ArrayList<>(List.of(rows));
    for (String r : all) {
      changes.pipeInput(new TestRecord<>(null, r.getBytes(StandardCharsets.UTF_8), headers));
    }
  }

  private static String row(long id, String city, String at) {
    return "{\"customer_id\": " + id + ", \"name\": \"N" + id + "\", \"email\": \"c" + id + "@example.com\", "
        + "\"city\": \"" + city + "\", \"tier\": \"gold\", \"updated_at\": \"" + at + "\"}";
  }
}
