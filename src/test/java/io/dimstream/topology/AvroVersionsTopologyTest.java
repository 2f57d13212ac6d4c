package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.codec.VersionAvro;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputFormat;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.testkit.DimensionTestDriver;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The topology with {@code versions_format: avro}: the same histories as with JSON, in Avro version records. */
class AvroVersionsTopologyTest {
  static final DimensionSpec CUSTOMERS_AVRO = avro(DimensionTopologyTest.CUSTOMERS);

  /** Every column type, a composite key and a composite sequence (timestamp + long). */
  static final DimensionSpec ITEMS = DimensionSpec.builder("items")
      .column("region", ColumnType.STRING).column("item_id", ColumnType.INT)
      .column("price", ColumnType.decimal(12, 3)).column("weight", ColumnType.DOUBLE)
      .column("active", ColumnType.BOOLEAN).column("launched", ColumnType.DATE)
      .column("checked_at", ColumnType.TIMESTAMP).column("stock", ColumnType.LONG).column("shelf", ColumnType.INT)
      .column("label", ColumnType.STRING).column("updated_at", ColumnType.TIMESTAMP).column("lsn", ColumnType.LONG)
      .column("op", ColumnType.STRING)
      .key("region", "item_id").sequence("updated_at", "lsn").track("price", "active", "label", "shelf")
      .delete(new DeleteRule.ColumnEquals("op", "d"))
      .outputFormat(OutputFormat.AVRO)
      .build();

  @TempDir
  Path stateDir;

  static DimensionSpec avro(DimensionSpec json) {
    return new DimensionSpec(json.name(), json.source(), json.columns(), json.key(), json.sequence(), json.tracked(),
        json.deleteRule(), json.inputFormat(), OutputFormat.AVRO, json.topics(), json.latenessHorizon(),
        json.output(), json.avroSchema(), json.service(), json.fields(), json.expressions(), json.history());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.dimstream.topology.DimensionTopologyTest#cases")
  void shouldFollowTheScd2ContractWithAvroVersionRecords(DimensionTopologyTest.Case c) {
    try (TopologyRunner h = TopologyRunner.builder(CUSTOMERS_AVRO).stateDir(stateDir).build()) {
      h.send(c.before().toArray(String[]::new));
      h.emitted();
      h.send(c.batch().toArray(String[]::new));

      assertThat(h.emitted()).map(Object::toString).containsExactlyElementsOf(c.emitted());
      assertThat(h.history()).containsExactlyElementsOf(c.history());
      assertThat(h.rejections()).isEmpty();
    }
  }

  @Test
  void shouldGiveTheReferenceFoldForAGeneratedStreamOfEveryColumnType() {
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(ITEMS, 77L).keys(30).events(1_500)
        .late(0.1).duplicates(0.05).noChange(0.1).deletes(0.05).sameSequence(0.02).generate();
    try (DimensionTestDriver dim = DimensionTestDriver.of(ITEMS)) {
      dim.send(stream);

      assertThat(dim.versions()).containsExactlyElementsOf(Scd2Fold.fold(ITEMS, stream.events()));
      assertThat(dim.dlq()).isEmpty();
      dim.assertInvariants();
    }
  }

  @Test
  void shouldRebuildTheReferenceFoldInAReplay() {
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(ITEMS, 5L).keys(20).events(800)
        .late(0.1).duplicates(0.05).deletes(0.05).generate();
    List<byte[]> values = stream.jsonLines().stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList();

    TopologyRunner.Replay result = TopologyRunner.replay(ITEMS, values.iterator(), r -> { });

    assertThat(result.history()).containsExactlyElementsOf(Scd2Fold.fold(ITEMS, stream.events()));
  }

  @Test
  void shouldWriteValuesAnyAvroReaderDecodesWithTheSchema() throws IOException {
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, CUSTOMERS_AVRO);
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(),
        DimensionTopology.config(CUSTOMERS_AVRO, Map.of("bootstrap.servers", "unused:9092"), stateDir),
        Instant.parse("2026-01-01T00:00:00Z"))) {
      var in = driver.createInputTopic(CUSTOMERS_AVRO.topics().changes(), new ByteArraySerializer(),
          new ByteArraySerializer());
      TestOutputTopic<byte[], byte[]> out = driver.createOutputTopic(CUSTOMERS_AVRO.topics().versions(),
          new ByteArrayDeserializer(), new ByteArrayDeserializer());
      in.pipeInput(null, DimensionTopologyTest.up(1, 10, "Ann", "Oslo", "gold").getBytes(StandardCharsets.UTF_8));
      in.pipeInput(null, DimensionTopologyTest.up(1, 20, "Ann", "Bergen", "gold").getBytes(StandardCharsets.UTF_8));

      GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(new VersionAvro(CUSTOMERS_AVRO).schema());
      List<String> rows = new ArrayList<>();
      for (TestRecord<byte[], byte[]> r : out.readRecordsToList()) {
        if (EventRecordHeaders.isEvent(r.headers())) {
          continue; // the event store's writes, in its own form
        }
        GenericRecord g = reader.read(null, DecoderFactory.get().binaryDecoder(r.value(), null));
        rows.add(new String(r.key(), StandardCharsets.UTF_8) + " " + g);
      }
      assertThat(rows).containsExactly(
          "{\"customer_id\":1,\"valid_from\":10} {\"customer_id\": 1, \"name\": \"Ann\", \"city\": \"Oslo\", "
              + "\"tier\": \"gold\", \"valid_from\": 10, \"valid_to\": null, \"is_current\": true, \"change\": \"open\"}",
          "{\"customer_id\":1,\"valid_from\":10} {\"customer_id\": 1, \"name\": \"Ann\", \"city\": \"Oslo\", "
              + "\"tier\": \"gold\", \"valid_from\": 10, \"valid_to\": 20, \"is_current\": false, \"change\": \"close\"}",
          "{\"customer_id\":1,\"valid_from\":20} {\"customer_id\": 1, \"name\": \"Ann\", \"city\": \"Bergen\", "
              + "\"tier\": \"gold\", \"valid_from\": 20, \"valid_to\": null, \"is_current\": true, \"change\": \"open\"}");
    }
  }

  @Test
  void shouldAnswerTestKitQueriesWithAvroVersionRecords() {
    try (DimensionTestDriver dim = DimensionTestDriver.of(CUSTOMERS_AVRO)) {
      dim.send(DimensionTopologyTest.up(1, 10, "Ann", "Oslo", "gold"), DimensionTopologyTest.del(1, 15));

      assertThat(dim.versions(1)).containsExactly(new Version(BusinessKey.of(1L), Sequence.of(10), Sequence.of(15),
          List.of("Ann", "Oslo", "gold")));
      assertThat(dim.current(1)).isEmpty();
    }
  }
}
