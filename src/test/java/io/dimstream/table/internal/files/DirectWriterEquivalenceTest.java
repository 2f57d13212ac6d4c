package io.dimstream.table.internal.files;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputColumns;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The direct writer ({@link VersionWriteSupport}, what {@link DataFiles#write} uses) against the parquet-avro writer
 * it replaced: the same versions give the same Parquet schema, rows, column statistics and Delta stats.
 */
class DirectWriterEquivalenceTest {
  private static final DimensionSpec SPEC = DimensionSpec.builder("accounts")
      .column("region", "string").column("acct", "int").column("day", "date").column("lsn", "int")
      .column("visits", "long").column("score", "double").column("active", "boolean")
      .column("opened", "timestamp").column("born", "date").column("limit", "decimal(38,6)")
      .column("price", "decimal(9,2)").column("name", "string")
      .key("region", "acct").sequence("day", "lsn")
      .output(new OutputColumns("valid_from", "valid_to", "is_current", "version_id")).build();
  private static final String[] NAMES = {"ann", "Zoë", "東京", "emoji 😀 ok", "", "a".repeat(40),
      "ü".repeat(33) + "😀", "\u0000nul"};
  private static final double[] DOUBLES = {0.0, -0.0, 1.5, -2.25, Double.NaN, Double.MAX_VALUE, Double.MIN_VALUE,
      Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY};

  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(value = CompressionCodecName.class, names = {"ZSTD", "SNAPPY", "UNCOMPRESSED"})
  void shouldWriteTheSameFileAsTheAvroWriter(CompressionCodecName codec) throws IOException {
    TableLayout layout = new TableLayout(SPEC);
    List<Version> input = versions(2_000, new Random(42));
    Path avroFile = dir.resolve("avro.parquet");
    String avroStats = writeThroughAvro(avroFile, input, layout, codec);
    AddFile direct = DataFiles.write(dir, "direct.parquet", input, layout, false, codec);
    Path directFile = dir.resolve("direct.parquet");

    ParquetMetadata avroFooter = footer(avroFile);
    ParquetMetadata directFooter = footer(directFile);
    assertThat(directFooter.getFileMetaData().getSchema()).isEqualTo(avroFooter.getFileMetaData().getSchema());
    assertThat(directFooter.getFileMetaData().getSchema().toString())
        .isEqualTo(avroFooter.getFileMetaData().getSchema().toString());
    assertThat(directFooter.getFileMetaData().getKeyValueMetaData().get(VersionWriteSupport.AVRO_SCHEMA_KEY))
        .isEqualTo(avroFooter.getFileMetaData().getKeyValueMetaData().get(VersionWriteSupport.AVRO_SCHEMA_KEY));
    assertThat(directFooter.getBlocks()).hasSameSizeAs(avroFooter.getBlocks());
    for (int b = 0; b < avroFooter.getBlocks().size(); b++) {
      BlockMetaData ab = avroFooter.getBlocks().get(b);
      BlockMetaData db = directFooter.getBlocks().get(b);
      assertThat(db.getRowCount()).isEqualTo(ab.getRowCount());
      for (int c = 0; c < ab.getColumns().size(); c++) {
        ColumnChunkMetaData ac = ab.getColumns().get(c);
        ColumnChunkMetaData dc = db.getColumns().get(c);
        assertThat(dc.getPath()).isEqualTo(ac.getPath());
        assertThat(dc.getCodec()).isEqualTo(codec).isEqualTo(ac.getCodec());
        assertThat(dc.getPrimitiveType()).isEqualTo(ac.getPrimitiveType());
        assertThat(dc.getEncodings()).isEqualTo(ac.getEncodings());
        assertThat(dc.getValueCount()).isEqualTo(ac.getValueCount());
        assertThat(dc.getStatistics()).as("statistics of %s", ac.getPath()).isEqualTo(ac.getStatistics());
        assertThat(dc.getStatistics().getNumNulls()).isEqualTo(ac.getStatistics().getNumNulls());
      }
    }
    assertThat(directFooter.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum()).isEqualTo(2_000);

    assertThat(records(directFile)).isEqualTo(records(avroFile));
    List<Version> expected = input.stream().map(DirectWriterEquivalenceTest::widened).toList();
    assertThat(read(dir, direct, layout)).isEqualTo(expected);
    assertThat(read(dir, new AddFile("avro.parquet", java.util.Map.of(), 0, 0, true, avroStats), layout))
        .isEqualTo(expected);

    assertThat(direct.stats()).isEqualTo(avroStats);
    JsonNode stats = ActionCodec.JSON.readTree(direct.stats());
    assertThat(stats.get("numRecords").asLong()).isEqualTo(2_000);
    assertThat(stats.get("nullCount").get("name").asLong())
        .isEqualTo(input.stream().filter(v -> v.attributes().get(7) == null).count());
    assertThat(stats.get("nullCount").get("valid_to").asLong())
        .isEqualTo(input.stream().filter(v -> v.validTo() == null).count());
    assertThat(stats.get("minValues").get("acct").asInt()).isEqualTo(-1_000);
    // a NaN in the column leaves it without min and max, as before
    assertThat(stats.get("maxValues").has("score")).isFalse();
  }

  @ParameterizedTest
  @EnumSource(value = CompressionCodecName.class, names = {"ZSTD"})
  void shouldKeepTheColumnTypesReadersSee(CompressionCodecName codec) throws IOException {
    TableLayout layout = new TableLayout(SPEC);
    DataFiles.write(dir, "direct.parquet", versions(10, new Random(1)), layout, true, codec);
    var schema = footer(dir.resolve("direct.parquet")).getFileMetaData().getSchema();
    assertThat(schema.getType("acct").asPrimitiveType().getPrimitiveTypeName()).isEqualTo(PrimitiveTypeName.INT32);
    assertThat(schema.getType("acct").getRepetition()).isEqualTo(Type.Repetition.REQUIRED);
    assertThat(schema.getType("visits").asPrimitiveType().getPrimitiveTypeName()).isEqualTo(PrimitiveTypeName.INT64);
    assertThat(schema.getType("visits").getRepetition()).isEqualTo(Type.Repetition.OPTIONAL);
    // an int sequence column is stored widened to long
    assertThat(schema.getType("valid_from_lsn").asPrimitiveType().getPrimitiveTypeName())
        .isEqualTo(PrimitiveTypeName.INT64);
    assertThat(schema.getType("valid_from").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.dateType());
    assertThat(schema.getType("opened").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS));
    assertThat(schema.getType("limit").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.decimalType(6, 38));
    assertThat(schema.getType("limit").asPrimitiveType().getTypeLength()).isEqualTo(16);
    assertThat(schema.getType("price").asPrimitiveType().getTypeLength()).isEqualTo(4);
    assertThat(schema.getType("name").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.stringType());
    assertThat(schema.getType("version_id").getRepetition()).isEqualTo(Type.Repetition.REQUIRED);
  }

  /** Versions with nulls, edge values, unicode and an Integer given for the long column (widened on write). */
  private static List<Version> versions(int n, Random rnd) {
    List<Version> out = new ArrayList<>();
    long day0 = LocalDate.of(2024, 1, 1).toEpochDay();
    for (int i = 0; i < n; i++) {
      BusinessKey key = BusinessKey.of(NAMES[i % NAMES.length], i % 3 == 0 ? -1_000 + i : i * 7);
      Sequence from = Sequence.of(day0 + i % 50, i);
      Sequence to = i % 4 == 0 ? null : Sequence.of(day0 + i % 50 + 1, i + 1);
      Object visits = switch (i % 5) {
        case 0 -> null;
        case 1 -> i; // an Integer for a long column
        case 2 -> Long.MIN_VALUE + i;
        case 3 -> Long.MAX_VALUE - i;
        default -> rnd.nextLong();
      };
      Object score = i % 7 == 0 ? null : DOUBLES[i % DOUBLES.length] * (rnd.nextBoolean() ? 1 : rnd.nextDouble());
      Object active = i % 6 == 0 ? null : i % 2 == 0;
      Object opened = i % 8 == 0 ? null : Instant.parse("1969-12-31T23:59:59.999999Z")
          .plusNanos(1_000L * rnd.nextInt(1_000_000_000) * (rnd.nextBoolean() ? 1 : -1));
      Object born = i % 9 == 0 ? null : LocalDate.of(1900, 1, 1).plusDays(rnd.nextInt(80_000));
      Object limit = i % 10 == 0 ? null : new BigDecimal(new BigInteger(120, rnd), 6).multiply(
          BigDecimal.valueOf(rnd.nextBoolean() ? 1 : -1));
      Object price = i % 11 == 0 ? null : i % 11 == 1 ? new BigDecimal("-9999999.99")
          : i % 11 == 2 ? new BigDecimal("0.00") : BigDecimal.valueOf(rnd.nextInt(1_000_000_000) * (rnd.nextBoolean() ? 1L : -1L), 2);
      Object name = i % 3 == 1 ? null : NAMES[(i / 3) % NAMES.length];
      out.add(new Version(key, from, to, Arrays.asList(visits, score, active, opened, born, limit, price, name)));
    }
    return out;
  }

  /** The version as a reader gets it back: the long column's Integer as a Long. */
  private static Version widened(Version v) {
    List<Object> attributes = new ArrayList<>(v.attributes());
    if (attributes.get(0) instanceof Integer i) {
      attributes.set(0, i.longValue());
    }
    return new Version(v.key(), v.validFrom(), v.validTo(), attributes);
  }

  /** The writer DataFiles used before: an Avro record per row through parquet-avro, same settings. */
  private static String writeThroughAvro(Path file, List<Version> rows, TableLayout layout,
      CompressionCodecName codec) throws IOException {
    StatsCollector stats = new StatsCollector(layout.dataColumns);
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    conf.set("parquet.avro.write-old-list-structure", "false");
    AvroParquetWriter.Builder<GenericRecord> builder = AvroParquetWriter.builder(new LocalOutputFile(file));
    KeyFilters.bloomFilters(builder, layout, rows.size());
    try (ParquetWriter<GenericRecord> w = builder
        .withSchema(layout.avroSchema)
        .withConf(conf)
        .withDataModel(GenericData.get())
        .withCodecFactory(PlainCodecFactory.INSTANCE)
        .withCompressionCodec(codec)
        .withWriteMode(ParquetFileWriter.Mode.CREATE)
        .build()) {
      for (Version v : rows) {
        w.write(layout.toRecord(v, stats));
      }
    }
    return stats.toJson();
  }

  private static ParquetMetadata footer(Path file) throws IOException {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      return r.getFooter();
    }
  }

  private static List<GenericRecord> records(Path file) throws IOException {
    List<GenericRecord> out = new ArrayList<>();
    try (ParquetReader<GenericRecord> r = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file),
        new PlainParquetConfiguration()).withDataModel(GenericData.get())
        .withCodecFactory(PlainCodecFactory.INSTANCE).build()) {
      for (GenericRecord rec = r.read(); rec != null; rec = r.read()) {
        out.add(rec);
      }
    }
    return out;
  }

  private static List<Version> read(Path root, AddFile file, TableLayout layout) {
    List<Version> out = new ArrayList<>();
    try (DataFiles.RowIterator it = DataFiles.read(root, file, layout, 0)) {
      it.forEachRemaining(out::add);
    }
    assertThat(Files.exists(DataFiles.resolve(root, file.path()))).isTrue();
    return out;
  }
}
