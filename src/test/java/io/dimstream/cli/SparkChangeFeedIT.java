package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.compactor.Compactor;
import io.dimstream.history.Scd2Fold;
import io.dimstream.interop.SparkChecks;
import io.dimstream.interop.SparkProcess;
import io.dimstream.interop.SparkRows;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.service.CatchUp;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.EventRecordHeaders;
import io.dimstream.types.ColumnValues;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with {@code delta.enableChangeDataFeed: "true"}, written by {@code dimstream run} (changes sent in three
 * waves with late events, duplicates, deletes and re-inserts; background compaction, then {@code table optimize}) and
 * by {@code backfill} then {@code apply-snapshot} (merge-on-read and copy-on-write), read by Spark 4.0 + Delta 4.0 as
 * a downstream job reads it: {@code readChangeFeed} and {@code table_changes_by_path}, from version 0 and from a
 * version in the middle. Applied to the table as it was where the feed starts, the change rows of each wave give the
 * table as it is after that wave, as the versions topic of the run (or the reference fold) has it, each removed row
 * being exactly the row the table held; the table itself still reads right in Spark and Delta Kernel.
 */
class SparkChangeFeedIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration PHASE = Duration.ofMinutes(3);
  private static final String FEED = "output: {table_properties: {delta.enableChangeDataFeed: \"true\"}}\n";

  @TempDir
  Path dir;

  /** One row of the change data feed as Spark returns it. */
  record ChangeRow(long commitVersion, String type, Version version) {}

  @Test
  void shouldReadTheChangesOfRunAsTheVersionsTopicCarriedThem() throws Exception {
    String name = "customers_cdf_run";
    Path yaml = ExampleSpec.write(dir, name, name, dir.resolve("data"), "", FEED);
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 61L).keys(150).events(2_400)
        .late(0.1).duplicates(0.03).noChange(0.1).deletes(0.08).generate();
    List<String> lines = stream.jsonLines();
    Map<String, Object> kafka = KAFKA.clientProperties();
    Path table = dir.resolve("table");
    Path log = Path.of("target", "SparkChangeFeedIT-run.log");
    Files.deleteIfExists(log);

    // the table version and the versions topic's rows at the end of each wave (wave 0: the empty table)
    List<Long> waveEnds = new ArrayList<>();
    List<Map<VersionId, Version>> topicAfter = new ArrayList<>();
    try (ServiceProcess service = ServiceProcess.start(log, "--config", yaml.toString(), "--bootstrap-servers",
        KAFKA.bootstrapServers(), "--http-port", "0")) {
      int waves = 3;
      for (int w = 0; w < waves; w++) {
        List<String> wave = lines.subList(w * lines.size() / waves, (w + 1) * lines.size() / waves);
        send(kafka, spec.topics().changes(), wave);
        assertThat(CatchUp.await(() -> Files.exists(table.resolve("_delta_log"))
            && CatchUp.streamsCaughtUp(kafka, spec, "dimstream-" + name)
            && CatchUp.tableCaughtUp(kafka, spec, Compactor.openTable(spec)), PHASE))
            .as("wave %d in the table", w + 1).isTrue();
        if (w == 0) {
          waveEnds.add(0L);
          topicAfter.add(Map.of());
        }
        waveEnds.add(DeltaTable.open(table).latest().version());
        topicAfter.add(topicRows(kafka, spec));
      }
      assertThat(service.stop()).as("run stops cleanly").isZero();
    }
    assertThat(Main.commandLine().execute("table", "optimize", "--table", table.toString())).isZero();

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertThat(EndToEndIT.sorted(new ArrayList<>(topicAfter.get(topicAfter.size() - 1).values())))
        .as("the versions topic folds to the reference").containsExactlyElementsOf(expected);
    DeltaTable t = DeltaTable.open(table);
    assertThat(t.properties()).containsEntry("delta.enableChangeDataFeed", "true");
    assertThat(t.history()).extracting(CommitSummary::operation).contains("OPTIMIZE");
    SparkChecks.assertReads(table, spec, expected, waveEnds.get(1));

    List<ChangeRow> all = changes(table, spec, 0);
    assertThat(all).extracting(ChangeRow::type).as("a run with late events and deletes has every kind of change")
        .contains("insert", "update_preimage", "update_postimage", "delete");
    assertThat(all).as("compaction and optimize change no row")
        .allMatch(r -> r.commitVersion() <= waveEnds.get(waveEnds.size() - 1));
    assertThat(sqlChanges(table, spec, 0)).as("table_changes_by_path").containsExactlyInAnyOrderElementsOf(all);
    assertWavesReplay(all, waveEnds, topicAfter, 0);

    long middle = waveEnds.get(1) + 1;
    List<ChangeRow> fromMiddle = changes(table, spec, middle);
    assertThat(fromMiddle).containsExactlyInAnyOrderElementsOf(all.stream()
        .filter(r -> r.commitVersion() >= middle).toList());
    assertWavesReplay(fromMiddle, waveEnds, topicAfter, 1);
  }

  @Test
  void shouldReadTheChangesOfBackfillAndApplySnapshotAsTheReferenceFoldHasThem() throws Exception {
    assertBackfillAndSnapshotChanges(ExampleSpec.customers(dir, "customers_cdf_backfill", "", FEED));
  }

  @Test
  void shouldReadTheChangesOfACopyOnWriteTable() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_cdf_cow", "", "output: {table_properties: "
        + "{delta.enableChangeDataFeed: \"true\", delta.enableDeletionVectors: \"false\"}}\n");
    assertBackfillAndSnapshotChanges(spec);
    DeltaTable t = DeltaTable.open(dir.resolve("table"));
    assertThat(t.mergeOnRead()).isFalse();
    assertThat(io.dimstream.table.Protocols.latest(t).writerFeatureList()).contains("changeDataFeed");
  }

  /**
   * {@code backfill} then {@code apply-snapshot} of a full export that changes, closes and leaves keys as they were;
   * the feed from version 0 and from the snapshot's commit against the reference fold before and after.
   */
  private void assertBackfillAndSnapshotChanges(DimensionSpec spec) throws Exception {
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 62L).keys(200).events(2_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.05).generate();
    Path table = dir.resolve("table");
    Path input = Files.write(dir.resolve("changes.jsonl"), stream.jsonLines(), StandardCharsets.UTF_8);
    assertThat(Main.commandLine().execute("backfill", "--config", spec.source().toString(), "--input",
        input.toString(), "--table", table.toString())).isZero();
    long backfilled = DeltaTable.open(table).latest().version();
    List<Version> afterBackfill = Scd2Fold.fold(spec, stream.events());

    // a full export at a later time: every other current key, one in three with a new city; the others deleted
    Instant at = Instant.parse("2030-01-01T00:00:00Z");
    Sequence atSequence = Sequence.of(ColumnValues.sequenceLong(at, spec.sequenceColumns().get(0).type()));
    List<String> names = spec.attributeColumns().stream().map(c -> c.name()).toList();
    int city = names.indexOf("city");
    List<String> snapshot = new ArrayList<>();
    List<ChangeEvent> events = new ArrayList<>(stream.events());
    int i = 0;
    for (Version v : afterBackfill) {
      if (!v.isCurrent()) {
        continue;
      }
      if (i++ % 2 != 0) {
        events.add(ChangeEvent.delete(v.key(), atSequence));
        continue;
      }
      List<Object> attributes = new ArrayList<>(v.attributes());
      if (i % 3 == 0) {
        attributes.set(city, "Snapshot City");
      }
      ObjectNode row = JSON.createObjectNode();
      row.put(spec.keyColumns().get(0).name(), (Long) v.key().values().get(0));
      for (int a = 0; a < names.size(); a++) {
        row.put(names.get(a), (String) attributes.get(a));
      }
      snapshot.add(JSON.writeValueAsString(row));
      events.add(ChangeEvent.upsert(v.key(), atSequence, attributes));
    }
    Path export = Files.write(dir.resolve("snapshot.jsonl"), snapshot);
    assertThat(Main.commandLine().execute("apply-snapshot", "--config", spec.source().toString(), "--table",
        table.toString(), "--input", export.toString(), "--at", at.toString())).isZero();
    long snapshotVersion = DeltaTable.open(table).latest().version();
    List<Version> afterSnapshot = Scd2Fold.fold(spec, events);

    SparkChecks.assertReads(table, spec, afterSnapshot, backfilled);
    List<Long> ends = List.of(0L, backfilled, snapshotVersion);
    List<Map<VersionId, Version>> rows = List.of(Map.of(), byId(afterBackfill), byId(afterSnapshot));
    List<ChangeRow> all = changes(table, spec, 0);
    assertThat(all.stream().filter(r -> r.commitVersion() <= backfilled)).as("the backfill inserts every row")
        .allMatch(r -> r.type().equals("insert")).hasSize(afterBackfill.size());
    assertThat(sqlChanges(table, spec, 0)).as("table_changes_by_path").containsExactlyInAnyOrderElementsOf(all);
    assertWavesReplay(all, ends, rows, 0);
    assertWavesReplay(changes(table, spec, backfilled + 1), ends, rows, 1);
  }

  /**
   * From the rows after wave {@code from}, the change rows of the versions of each later wave, applied in commit
   * order (each {@code update_preimage} and {@code delete} row removes exactly the row the table holds of its
   * identity, each {@code update_postimage} and {@code insert} row adds one the table does not hold), give the rows
   * after that wave.
   */
  private static void assertWavesReplay(List<ChangeRow> rows, List<Long> waveEnds,
      List<Map<VersionId, Version>> rowsAfter, int from) {
    Map<VersionId, Version> table = new HashMap<>(rowsAfter.get(from));
    TreeMap<Long, List<ChangeRow>> byCommit = new TreeMap<>();
    rows.forEach(r -> byCommit.computeIfAbsent(r.commitVersion(), v -> new ArrayList<>()).add(r));
    assertThat(byCommit.isEmpty() || byCommit.firstKey() > waveEnds.get(from)).as("no change before the start")
        .isTrue();
    for (int w = from + 1; w < waveEnds.size(); w++) {
      for (List<ChangeRow> commit : byCommit.subMap(waveEnds.get(w - 1), false, waveEnds.get(w), true).values()) {
        for (ChangeRow r : commit) {
          if (r.type().equals("update_preimage") || r.type().equals("delete")) {
            assertThat(table.remove(VersionId.of(r.version()))).as("the row %s removes at version %d", r.type(),
                r.commitVersion()).isEqualTo(r.version());
          }
        }
        for (ChangeRow r : commit) {
          if (r.type().equals("update_postimage") || r.type().equals("insert")) {
            assertThat(table.put(VersionId.of(r.version()), r.version())).as("a row already there before the %s at "
                + "version %d", r.type(), r.commitVersion()).isNull();
          }
        }
      }
      assertThat(EndToEndIT.sorted(new ArrayList<>(table.values()))).as("the table after wave %d", w)
          .containsExactlyElementsOf(EndToEndIT.sorted(new ArrayList<>(rowsAfter.get(w).values())));
    }
  }

  /** Spark's {@code readChangeFeed} of the table from {@code startingVersion}. */
  private static List<ChangeRow> changes(Path table, DimensionSpec spec, long startingVersion) {
    return changeRows(SparkProcess.shared().sql("READ_CHANGE_FEED " + startingVersion + " " + table.toAbsolutePath()),
        spec);
  }

  /** Spark SQL's {@code table_changes_by_path} of the table from {@code startingVersion}. */
  private static List<ChangeRow> sqlChanges(Path table, DimensionSpec spec, long startingVersion) {
    return changeRows(SparkProcess.shared().sql("SELECT * FROM table_changes_by_path('" + table.toAbsolutePath()
        + "', " + startingVersion + ")"), spec);
  }

  private static List<ChangeRow> changeRows(List<JsonNode> rows, DimensionSpec spec) {
    List<ChangeRow> out = new ArrayList<>();
    for (JsonNode r : rows) {
      out.add(new ChangeRow(r.path("_commit_version").asLong(), r.path("_change_type").asText(),
          SparkRows.versions(List.of(r), spec).get(0)));
    }
    out.sort(Comparator.comparingLong(ChangeRow::commitVersion));
    return out;
  }

  /** The rows the versions topic holds now: the last record of each version identity (event records skipped). */
  private static Map<VersionId, Version> topicRows(Map<String, Object> kafka, DimensionSpec spec) {
    VersionRecordCodec codec = VersionRecordCodec.forSpec(spec);
    Map<VersionId, Version> rows = new LinkedHashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(kafka, spec.topics().versions(), true).kept()) {
      if (EventRecordHeaders.isEvent(r.headers())) {
        continue; // the event store's writes, not versions
      }
      VersionChange c = codec.decodeChange(r.key(), r.value());
      if (c instanceof VersionChange.Upsert u) {
        rows.put(c.id(), u.version());
      } else if (c != null) {
        rows.remove(c.id());
      }
    }
    return rows;
  }

  private static Map<VersionId, Version> byId(List<Version> rows) {
    Map<VersionId, Version> out = new HashMap<>();
    rows.forEach(v -> out.put(VersionId.of(v), v));
    return out;
  }

  private static void send(Map<String, Object> kafka, String topic, List<String> lines) {
    Map<String, Object> props = new HashMap<>(kafka);
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props)) {
      for (String line : lines) {
        p.send(new ProducerRecord<>(topic, null, line.getBytes(StandardCharsets.UTF_8)));
      }
      p.flush();
    }
  }
}
