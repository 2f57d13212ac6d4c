package io.dimstream.enrich.streams;

import static io.dimstream.enrich.EnrichmentFixtures.enrichedRow;
import static io.dimstream.enrich.EnrichmentFixtures.withoutRevision;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentFixtures;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.enrich.Fact;
import io.dimstream.history.ApplyResult;
import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.topology.DimensionTopology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * The enrichment's contract on the service's own topology (the dimension's sub-topologies, the facts' repartition, the
 * enrichment processor over its RocksDB stores and its wall-clock punctuator): change records of a few customers
 * (late, duplicated, deleting, changing nothing, correcting the open version's type-1 name, or the values of an
 * earlier sequence) and orders (some redelivered, some sent again with another customer or time, some of a customer
 * the dimension never has), interleaved in any
 * order, with record timestamps that jump back and forth and the wall clock advanced by any amount between records.
 * Afterwards the last record per order on the output topic equals the batch point-in-time join of every order with
 * the final history (the reference fold of the events the dimension accepted), and each order's revisions count
 * 1, 2, 3, ….
 */
class EnrichmentTopologyPropertyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  /** One generated run: the steps (each a change, an order or a redelivery), and the settings. */
  record Run(List<Integer> steps, int settings) {
    boolean showVersion() {
      return (settings & 1) != 0;
    }

    /** Grace in seconds: 0, 1 or 3. */
    int grace() {
      return new int[] {0, 1, 3, 0}[(settings >> 1) & 3];
    }

    boolean shortHorizon() {
      return (settings & 8) != 0;
    }
  }

  @Test
  void shouldEndWithTheBatchJoinWhateverTheInterleavingAndTheClocks() {
    qt().withExamples(60).withShrinkCycles(40)
        .forAll(lists().of(integers().between(0, Integer.MAX_VALUE)).ofSizeBetween(1, 45),
            integers().between(0, 15))
        .as(Run::new)
        .checkAssert(EnrichmentTopologyPropertyTest::check);
  }

  private static void check(Run run) {
    DimensionSpec customers = EnrichmentFixtures.customers(run.shortHorizon() ? EnrichmentFixtures.micros(6)
        : EnrichmentFixtures.micros(86_400));
    EnrichmentSpec spec = orders(customers, run.showVersion(), run.grace());
    Path state;
    try {
      state = Files.createTempDirectory("enrichment-property");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, customers);
    EnrichmentTopology.build(builder, customers, List.of(spec), 1, Duration.ofMillis(100));
    IncrementalHistory history = new IncrementalHistory(customers);
    InMemoryHistoryStore historyStore = new InMemoryHistoryStore();
    List<ChangeEvent> accepted = new ArrayList<>();
    List<Fact> facts = new ArrayList<>();
    List<TestRecord<byte[], byte[]>> output;
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(),
        DimensionTopology.config(customers, EnrichmentFixtures.WITHOUT_BROKER, state), START)) {
      TestInputTopic<byte[], byte[]> changes = driver.createInputTopic(customers.topics().changes(),
          new ByteArraySerializer(), new ByteArraySerializer());
      TestInputTopic<byte[], byte[]> orders = driver.createInputTopic(spec.facts().topic(),
          new ByteArraySerializer(), new ByteArraySerializer());
      TestOutputTopic<byte[], byte[]> enriched = driver.createOutputTopic(spec.outputTopic(),
          new ByteArrayDeserializer(), new ByteArrayDeserializer());
      int orderId = 0;
      for (int x : run.steps()) {
        int kind = x % 8;
        // stream time: record timestamps within a minute of the start, in any order
        Instant timestamp = START.plusMillis((x >>> 3) % 60_000);
        if (kind < 4) {
          ChangeEvent e = change(x >>> 3);
          changes.pipeInput(null, changeRecord(e), timestamp);
          if (history.apply(historyStore, e) instanceof ApplyResult.Applied) {
            accepted.add(e);
          }
        } else if (kind < 7 || facts.isEmpty()) {
          Fact f = order(orderId++, x >>> 3);
          facts.add(f);
          orders.pipeInput(null, orderRecord(f), timestamp);
        } else {
          Fact earlier = facts.get((x >>> 3) % facts.size());
          // redelivered, or (with the day-long horizon, which keeps every order) sent again with another customer or
          // time: one partition, so one task, which replaces the order's earlier form
          Fact f = run.shortHorizon() || (x >>> 23) % 2 == 0 ? earlier
              : order((int) (long) (Long) earlier.values().get(0), x >>> 5);
          facts.add(f);
          orders.pipeInput(null, orderRecord(f), timestamp);
        }
        // the wall clock: still, a tick or two, or past any grace
        driver.advanceWallClockTime(Duration.ofMillis(new int[] {0, 0, 50, 150, 400, 1_200, 4_000, 0}[(x >>> 20) % 8]));
      }
      driver.advanceWallClockTime(Duration.ofSeconds(5)); // ends every run of changes and every grace
      output = enriched.readRecordsToList();
    } finally {
      delete(state);
    }

    EnrichedRows rows = new EnrichedRows(spec);
    Map<String, JsonNode> want = new HashMap<>();
    BatchEnrichment.join(spec, facts, Scd2Fold.fold(customers, accepted))
        .forEach((k, e) -> want.put(k, withoutRevision(enrichedRow(rows.value(e)))));
    Map<String, List<ObjectNode>> byOrder = new LinkedHashMap<>();
    for (TestRecord<byte[], byte[]> r : output) {
      byOrder.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>()).add(enrichedRow(r.value()));
    }
    Map<String, JsonNode> last = new HashMap<>();
    byOrder.forEach((k, records) -> {
      assertThat(records.get(0).get("revision").asLong()).as("first revision of order %s", k).isEqualTo(1);
      for (int i = 1; i < records.size(); i++) {
        long prev = records.get(i - 1).get("revision").asLong();
        long rev = records.get(i).get("revision").asLong();
        if (rev == prev) {
          // a redelivered order older than the horizon is not kept, so it is enriched again: the same record
          assertThat(records.get(i)).as("repeated record %d of order %s", i + 1, k).isEqualTo(records.get(i - 1));
        } else {
          assertThat(rev).as("revision of record %d of order %s", i + 1, k).isEqualTo(prev + 1);
        }
      }
      last.put(k, withoutRevision(records.get(records.size() - 1)));
    });
    assertThat(last).isEqualTo(want);
  }

  /** Orders joined with customers, adding the type-1 name and the tracked city and tier. */
  private static EnrichmentSpec orders(DimensionSpec customers, boolean showVersion, int graceSeconds) {
    String yaml = """
        name: orders_enriched
        dimension: customers.yaml
        facts:
          topic: orders
          columns: {order_id: long, customer_id: long, ordered_at: timestamp, amount: double}
          key: [order_id]
          time: ordered_at
        join: {customer_id: customer_id}
        attributes: [name, city, {tier: customer_tier}]
        grace: %ds
        """.formatted(graceSeconds) + (showVersion ? "version_id: customer_sk\nvalid_from: customer_valid_from\n" : "");
    try {
      return EnrichmentSpecLoader.parse(YAML.readTree(yaml), null, customers);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Customer 0..2 at second 0..11 (few enough that sequences repeat: duplicates, and other values for an earlier
   * sequence); one event in six a delete; the type-1 name, city and tier from two values each, city sometimes null.
   */
  private static ChangeEvent change(int y) {
    BusinessKey key = BusinessKey.of((long) (y % 3));
    Sequence seq = Sequence.of(EnrichmentFixtures.micros((y / 3) % 12));
    int v = y / 36;
    if (v % 6 == 0) {
      return ChangeEvent.delete(key, seq);
    }
    return ChangeEvent.upsert(key, seq, Arrays.asList("n" + (v / 6) % 2, (v / 12) % 3 == 2 ? null : "c" + (v / 12) % 2,
        "t" + (v / 36) % 2));
  }

  /** Order {@code id} of customer 0..3 (3 is never in the dimension) at second -1..12. */
  private static Fact order(int id, int y) {
    return new Fact(List.of((long) id, (long) (y % 4), START.plusSeconds((y / 4) % 14 - 1), 10.0 + id));
  }

  private static byte[] changeRecord(ChangeEvent e) {
    ObjectNode n = JSON.createObjectNode();
    n.put("customer_id", (Long) e.key().values().get(0));
    if (!e.delete()) {
      n.put("name", (String) e.attributes().get(0));
      n.put("city", (String) e.attributes().get(1));
      n.put("tier", (String) e.attributes().get(2));
    }
    n.put("updated_at", Instant.EPOCH.plusNanos(e.sequence().first() * 1_000).toString());
    n.put("op", e.delete() ? "d" : "u");
    return n.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] orderRecord(Fact f) {
    ObjectNode n = JSON.createObjectNode();
    n.put("order_id", (Long) f.values().get(0));
    n.put("customer_id", (Long) f.values().get(1));
    n.put("ordered_at", f.values().get(2).toString());
    n.put("amount", (Double) f.values().get(3));
    return n.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
