package io.dimstream.topology;

import static io.dimstream.topology.DimensionTopologyTest.CUSTOMERS;
import static io.dimstream.topology.DimensionTopologyTest.del;
import static io.dimstream.topology.DimensionTopologyTest.up;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.EventRecords;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event records the topology writes beside the versions: replaying them, last write per store key, gives the
 * event store exactly (what the compactor keeps beside the table for a takeover after lost state), pruning included.
 */
class EventRecordsTopologyTest {
  @TempDir Path stateDir;

  @Test
  void shouldWriteEveryEventStoreWriteToTheVersionsTopic() {
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, CUSTOMERS);
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(),
        DimensionTopology.config(CUSTOMERS, Map.of("bootstrap.servers", "unused:9092"), stateDir),
        Instant.parse("2026-01-01T00:00:00Z"))) {
      var in = driver.createInputTopic(CUSTOMERS.topics().changes(), new ByteArraySerializer(),
          new ByteArraySerializer());
      var out = driver.createOutputTopic(CUSTOMERS.topics().versions(), new ByteArrayDeserializer(),
          new ByteArrayDeserializer());
      for (String line : new String[] {
          up(1, 10, "Ann", "Oslo", "gold"),
          up(1, 20, "Ann", "Oslo", "gold"), // changes nothing: a version would not show it
          up(1, 30, "Ann", "Bergen", "gold"),
          up(1, 15, "Ann", "Rome", "gold"), // late: spliced in, the events after it stored again
          up(1, 20, "Ann", "Oslo", "gold"), // a duplicate
          del(2, 5), // a delete with nothing open
          up(3, 1, "Cid", "Bern", "gold")}) {
        in.pipeInput(null, line.getBytes(StandardCharsets.UTF_8));
      }
      Map<String, String> replayed = new HashMap<>();
      int versions = 0;
      for (TestRecord<byte[], byte[]> r : out.readRecordsToList()) {
        if (!EventRecordHeaders.isEvent(r.headers())) {
          versions++;
          continue;
        }
        String key = HexFormat.of().formatHex(EventRecords.storeKey(r.key()));
        if (r.value() == null) {
          replayed.remove(key);
        } else {
          replayed.put(key, HexFormat.of().formatHex(r.value()));
        }
      }
      KeyValueStore<Bytes, byte[]> store = driver.getKeyValueStore(DimensionTopology.EVENT_STORE);
      Map<String, String> stored = new HashMap<>();
      try (var it = store.all()) {
        it.forEachRemaining(kv -> stored.put(HexFormat.of().formatHex(kv.key.get()),
            HexFormat.of().formatHex(kv.value)));
      }
      assertThat(stored).as("the event store").hasSize(6);
      assertThat(replayed).as("the event records replayed, last write per key").isEqualTo(stored);
      assertThat(versions).as("version records beside them").isPositive();
    }
  }

  @Test
  void shouldWriteThePruningOfTheEventStoreToo() {
    io.dimstream.spec.DimensionSpec spec = PersistentStateTest.ITEMS; // a horizon of 100
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, spec);
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(),
        DimensionTopology.config(spec, Map.of("bootstrap.servers", "unused:9092"), stateDir),
        Instant.parse("2026-01-01T00:00:00Z"))) {
      var in = driver.createInputTopic(spec.topics().changes(), new ByteArraySerializer(), new ByteArraySerializer());
      var out = driver.createOutputTopic(spec.topics().versions(), new ByteArrayDeserializer(),
          new ByteArrayDeserializer());
      for (long seq : new long[] {10, 20, 30, 500}) {
        in.pipeInput(null, PersistentStateTest.item(1, "c" + seq, seq).getBytes(StandardCharsets.UTF_8));
      }
      driver.advanceWallClockTime(Duration.ofSeconds(2));
      long tombstones = out.readRecordsToList().stream()
          .filter(r -> EventRecordHeaders.isEvent(r.headers()) && r.value() == null).count();
      KeyValueStore<Bytes, byte[]> store = driver.getKeyValueStore(DimensionTopology.EVENT_STORE);
      long left;
      try (var it = store.all()) {
        left = 0;
        while (it.hasNext()) {
          it.next();
          left++;
        }
      }
      assertThat(left).as("10 and 20 pruned, 30 kept as the anchor, and 500").isEqualTo(2);
      assertThat(tombstones).as("event records of the pruned events").isEqualTo(2);
    }
  }
}
