package io.dimstream.table.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.table.TableException;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import io.dimstream.table.internal.files.PlainCodecFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deletion vectors and table features in the log: the codec, replay identity, checkpoints, protocol checks. */
class DeletionVectorLogTest {
  private static final Map<String, String> CURRENT = Map.of("is_current", "true");
  private static final DeletionVectorDescriptor IN_FILE =
      DeletionVectorDescriptor.inFile(UUID.fromString("ad3f2b83-5957-4237-bb5e-b17709403857"), 1, 79, 49);

  @TempDir
  Path dir;

  private static DeletionVectorDescriptor inline(long... rows) {
    RoaringBitmapArray a = new RoaringBitmapArray();
    for (long r : rows) {
      a.add(r);
    }
    return DeletionVectorDescriptor.inline(a);
  }

  private static AddFile add(String path, DeletionVectorDescriptor dv) {
    return new AddFile(path, CURRENT, 100, 1, true, "{\"numRecords\":3}", dv);
  }

  @Test
  void shouldWriteAndParseDeletionVectorsAndFeaturesAsTheProtocolNamesThem() throws Exception {
    List<Action> actions = List.of(add("a.parquet", IN_FILE),
        new RemoveFile("a.parquet", 5, true, CURRENT, 100, inline(0, 2)),
        new Protocol(3, 7, List.of("deletionVectors"), List.of("deletionVectors", "invariants", "appendOnly")));
    for (Action a : actions) {
      assertThat(ActionCodec.fromJson(ActionCodec.toJson(a))).isEqualTo(a);
    }
    JsonNode dv = ActionCodec.JSON.readTree(ActionCodec.toJson(actions.get(0))).path("add").path("deletionVector");
    assertThat(dv.path("storageType").asText()).isEqualTo("u");
    assertThat(dv.path("offset").asInt()).isEqualTo(1);
    assertThat(dv.path("sizeInBytes").asInt()).isEqualTo(79);
    assertThat(dv.path("cardinality").asLong()).isEqualTo(49);
    JsonNode inlineDv = ActionCodec.JSON.readTree(ActionCodec.toJson(actions.get(1))).path("remove")
        .path("deletionVector");
    assertThat(inlineDv.path("storageType").asText()).isEqualTo("i");
    assertThat(inlineDv.has("offset")).isFalse();
  }

  @Test
  void shouldKeepAFileWhoseDeletionVectorChangedAsOneLiveFile() {
    TableState.Builder b = new TableState.Builder();
    b.apply(add("a.parquet", null));
    // what Spark's DELETE writes: the add with the new DV first, then the remove of the file as it was
    b.apply(List.of(add("a.parquet", IN_FILE), new RemoveFile("a.parquet", 5, true, CURRENT, 100, null)));
    TableState s = b.build(1, 0);
    assertThat(s.adds.values()).singleElement().satisfies(a -> assertThat(a.deletionVector()).isEqualTo(IN_FILE));
    assertThat(s.removes.values()).singleElement().satisfies(r -> assertThat(r.deletionVector()).isNull());
    DeletionVectorDescriptor next = inline(7);
    b.apply(List.of(add("a.parquet", next), add("a.parquet", IN_FILE).remove(6, true)));
    assertThat(b.build(2, 0).adds.values()).singleElement()
        .satisfies(a -> assertThat(a.deletionVector()).isEqualTo(next));
  }

  @Test
  void shouldWriteDeletionVectorsAndFeaturesIntoCheckpointsAndReadThemBack() throws Exception {
    DeltaLog log = new DeltaLog(dir);
    Files.createDirectories(dir.resolve("_delta_log"));
    TableState.Builder b = new TableState.Builder();
    b.apply(new Protocol(3, 7, List.of("deletionVectors"), List.of("deletionVectors")));
    b.apply(metadata());
    b.apply(add("a.parquet", IN_FILE));
    b.apply(add("b.parquet", inline(1, 5)));
    b.apply(add("c.parquet", null));
    b.apply(new RemoveFile("d.parquet", System.currentTimeMillis(), true, CURRENT, 100, inline(3)));
    TableState state = b.build(4, 0);
    Checkpoints.write(log, state, 0);
    TableState read = Checkpoints.read(log, log.checkpointParts(4)).build(4, 0);
    assertThat(read.protocol).isEqualTo(state.protocol);
    assertThat(read.adds).isEqualTo(state.adds);
    assertThat(read.removes).isEqualTo(state.removes);
  }

  @Test
  void shouldReadAMultiPartCheckpointOnlyWhenEveryPartIsThere() throws Exception {
    DeltaLog log = new DeltaLog(dir);
    Files.createDirectories(dir.resolve("_delta_log"));
    TableState.Builder b = new TableState.Builder();
    b.apply(Protocol.DEFAULT);
    b.apply(metadata());
    b.apply(add("a.parquet", null));
    Checkpoints.write(log, b.build(3, 0), 0);
    Path part1 = dir.resolve("_delta_log").resolve(String.format("%020d.checkpoint.%010d.%010d.parquet", 3, 1, 2));
    Files.move(dir.resolve(DeltaLog.checkpointKey(3)), part1);
    assertThat(log.checkpointVersions()).isEmpty();
    writeTxnPart(dir.resolve("_delta_log").resolve(String.format("%020d.checkpoint.%010d.%010d.parquet", 3, 2, 2)));
    assertThat(log.checkpointVersions()).containsExactly(3L);
    TableState s = Checkpoints.read(log, log.checkpointParts(3)).build(3, 0);
    assertThat(s.adds.values()).extracting(AddFile::path).containsExactly("a.parquet");
    assertThat(s.txns).containsKey("app");
  }

  @Test
  void shouldRefuseAReaderFeatureItDoesNotImplementAndSayWhy() throws Exception {
    DeltaLog log = new DeltaLog(dir);
    Files.createDirectories(dir.resolve("_delta_log"));
    Files.writeString(dir.resolve(DeltaLog.commitKey(0)), String.join("\n",
        ActionCodec.toJson(new Protocol(3, 7, List.of("deletionVectors", "columnMapping"), List.of("columnMapping"))),
        ActionCodec.toJson(metadata())) + "\n");
    assertThatThrownBy(() -> LogReplay.load(log, null)).isInstanceOf(TableException.class)
        .hasMessageContaining("[columnMapping]").hasMessageContaining("Fix:");
  }

  @Test
  void shouldReadATableWithDeletionVectorsAndWriterOnlyFeatures() throws Exception {
    DeltaLog log = new DeltaLog(dir);
    Files.createDirectories(dir.resolve("_delta_log"));
    Files.writeString(dir.resolve(DeltaLog.commitKey(0)), String.join("\n",
        ActionCodec.toJson(new Protocol(3, 7, List.of("deletionVectors"), List.of("deletionVectors", "invariants",
            "appendOnly", "checkConstraints"))),
        ActionCodec.toJson(metadata())) + "\n");
    assertThat(LogReplay.load(log, null).protocol.readerFeatures()).containsExactly("deletionVectors");
  }

  @Test
  void shouldTurnParsedStatisticsIntoTheJsonStatsOfTheLog() throws Exception {
    Schema ts = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
    Schema values = SchemaBuilder.record("values").fields().optionalLong("customer_id")
        .name("valid_from").type().optional().type(ts).endRecord();
    Schema counts = SchemaBuilder.record("counts").fields().optionalLong("customer_id").optionalLong("valid_from")
        .endRecord();
    Schema stats = SchemaBuilder.record("stats_parsed").fields().optionalLong("numRecords")
        .name("minValues").type().optional().type(values)
        .name("maxValues").type().optional().type(values)
        .name("nullCount").type().optional().type(counts)
        .optionalBoolean("tightBounds").endRecord();
    GenericData.Record min = new GenericData.Record(values);
    min.put("customer_id", 1001L);
    min.put("valid_from", 1_772_439_000_123_456L); // 2026-03-02T08:10:00.123456Z
    GenericData.Record max = new GenericData.Record(values);
    max.put("customer_id", 1040L);
    GenericData.Record nulls = new GenericData.Record(counts);
    nulls.put("customer_id", 0L);
    nulls.put("valid_from", 0L);
    GenericData.Record r = new GenericData.Record(stats);
    r.put("numRecords", 130L);
    r.put("minValues", min);
    r.put("maxValues", max);
    r.put("nullCount", nulls);
    r.put("tightBounds", true);
    JsonNode json = ActionCodec.JSON.readTree(ParsedStats.toJson(r));
    assertThat(json.path("numRecords").asLong()).isEqualTo(130);
    assertThat(json.path("minValues").path("customer_id").asLong()).isEqualTo(1001);
    assertThat(json.path("minValues").path("valid_from").asText()).isEqualTo("2026-03-02T08:10:00.123Z");
    assertThat(json.path("maxValues").path("customer_id").asLong()).isEqualTo(1040);
    assertThat(json.path("maxValues").has("valid_from")).isFalse();
    assertThat(json.path("nullCount").path("valid_from").asLong()).isZero();
    assertThat(json.path("tightBounds").asBoolean()).isTrue();
  }

  private static Metadata metadata() {
    return new Metadata("id", "t", "{\"type\":\"struct\",\"fields\":[]}", List.of("is_current"), Map.of(), 0);
  }

  private static void writeTxnPart(Path file) throws Exception {
    Schema txn = Checkpoints.CHECKPOINT.getField("txn").schema().getTypes().get(1);
    GenericData.Record t = new GenericData.Record(txn);
    t.put("appId", "app");
    t.put("version", 9L);
    t.put("lastUpdated", 0L);
    GenericData.Record row = new GenericData.Record(Checkpoints.CHECKPOINT);
    row.put("txn", t);
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
        .withSchema(Checkpoints.CHECKPOINT).withConf(new PlainParquetConfiguration())
        .withCodecFactory(PlainCodecFactory.INSTANCE).build()) {
      w.write(row);
    }
  }
}
