package io.dimstream.codec;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputColumns;
import io.dimstream.spec.OutputFormat;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

class VersionAvroTest {
  private static final DimensionSpec CUSTOMERS = DimensionSpec.builder("customers")
      .column("customer_id", ColumnType.LONG)
      .column("name", ColumnType.STRING)
      .column("city", ColumnType.STRING)
      .column("updated_at", ColumnType.TIMESTAMP)
      .column("op", ColumnType.STRING)
      .key("customer_id").sequence("updated_at").track("city")
      .delete(new DeleteRule.ColumnEquals("op", "d"))
      .outputFormat(OutputFormat.AVRO)
      .build();

  /** Every column type, a composite key (string + int) and a composite sequence (date + long). */
  private static final DimensionSpec ALL_TYPES = DimensionSpec.builder("shop.things-v2")
      .column("region", ColumnType.STRING)
      .column("id", ColumnType.INT)
      .column("price", ColumnType.decimal(10, 2))
      .column("weight", ColumnType.DOUBLE)
      .column("active", ColumnType.BOOLEAN)
      .column("born", ColumnType.DATE)
      .column("seen", ColumnType.TIMESTAMP)
      .column("stock", ColumnType.LONG)
      .column("rank", ColumnType.INT)
      .column("note", ColumnType.STRING)
      .column("day", ColumnType.DATE)
      .column("lsn", ColumnType.LONG)
      .key("region", "id").sequence("day", "lsn")
      .output(new OutputColumns("from_ts", "to_ts", "current"))
      .outputFormat(OutputFormat.AVRO)
      .build();

  private static final long JAN1_6AM_MICROS = Instant.parse("2024-01-01T06:00:00Z").toEpochMilli() * 1000;

  private static final BusinessKey EU7 = BusinessKey.of("eu", 7);
  private static final Version OPEN = new Version(EU7, Sequence.of(19_000, 5), null, Arrays.asList(
      new BigDecimal("-12.50"), 0.1, true, LocalDate.of(1890, 5, 17), Instant.parse("2024-02-03T04:05:06.123456Z"),
      9_000_000_000L, -3, "Zürich ✓"));
  private static final Version CLOSED_NULLS = new Version(EU7, Sequence.of(19_000, 5), Sequence.of(19_001, -3),
      Arrays.asList(null, null, null, null, null, null, null, null));

  @Test
  void shouldRoundTripEveryColumnTypeCompositeKeyAndSequence() {
    VersionAvro avro = new VersionAvro(ALL_TYPES);
    for (Version v : List.of(OPEN, CLOSED_NULLS, OPEN.closedAt(Sequence.of(19_002, Long.MIN_VALUE)))) {
      for (ChangeKind kind : List.of(ChangeKind.OPEN, ChangeKind.CLOSE, ChangeKind.CORRECT)) {
        byte[] key = avro.encodeKey(v.key(), v.validFrom());
        assertThat(avro.decodeValue(avro.encodeValue(v, kind))).isEqualTo(new VersionJson.Row(v, kind));
        assertThat(avro.decodeChange(key, avro.encodeValue(v, kind))).isEqualTo(new VersionChange.Upsert(v, kind));
        assertThat(avro.decodeChange(key, null)).isEqualTo(new VersionChange.Retraction(EU7, v.validFrom()));
      }
    }
  }

  @Test
  void shouldKeepTheJsonRecordKeySoPartitioningAndCompactionDoNotChange() {
    VersionJson json = new VersionJson(ALL_TYPES);
    VersionAvro avro = new VersionAvro(ALL_TYPES);

    assertThat(avro.encodeKey(EU7, OPEN.validFrom())).isEqualTo(json.encodeKey(EU7, OPEN.validFrom()));
  }

  @Test
  void shouldBuildTheSchemaFromTheTemplateWithSpecColumnsAndOutputNames() {
    Schema s = new VersionAvro(ALL_TYPES).schema();

    assertThat(s.getFullName()).isEqualTo("io.dimstream.versions.shop_things_v2_version");
    assertThat(s.getFields()).extracting(Schema.Field::name).containsExactly("region", "id", "price", "weight",
        "active", "born", "seen", "stock", "rank", "note", "from_ts", "to_ts", "from_ts_lsn", "to_ts_lsn", "current",
        "change");
    assertThat(s.getField("region").schema().getType()).isEqualTo(Schema.Type.STRING);
    assertThat(s.getField("id").schema().getType()).isEqualTo(Schema.Type.INT);
    Schema price = s.getField("price").schema().getTypes().get(1);
    assertThat(price.getType()).isEqualTo(Schema.Type.BYTES);
    assertThat(price.getLogicalType()).isEqualTo(LogicalTypes.decimal(10, 2));
    assertThat(s.getField("price").defaultVal()).isEqualTo(org.apache.avro.JsonProperties.NULL_VALUE);
    assertThat(s.getField("born").schema().getTypes().get(1).getLogicalType()).isEqualTo(LogicalTypes.date());
    assertThat(s.getField("seen").schema().getTypes().get(1).getLogicalType())
        .isEqualTo(LogicalTypes.timestampMicros());
    assertThat(s.getField("from_ts").schema().getLogicalType()).isEqualTo(LogicalTypes.date());
    assertThat(s.getField("to_ts").schema().getTypes()).extracting(Schema::getType)
        .containsExactly(Schema.Type.NULL, Schema.Type.INT);
    assertThat(s.getField("from_ts_lsn").schema().getType()).isEqualTo(Schema.Type.LONG);
    assertThat(s.getField("current").schema().getType()).isEqualTo(Schema.Type.BOOLEAN);
    assertThat(s.getField("change").schema().getEnumSymbols()).contains("open", "close", "correct");
    assertThat(new VersionAvro(CUSTOMERS).schema().getField("valid_from").schema().getLogicalType())
        .isEqualTo(LogicalTypes.timestampMicros());
  }

  @Test
  void shouldBeReadableByAnyAvroReaderWithTheSchema() throws IOException {
    VersionAvro avro = new VersionAvro(CUSTOMERS);
    Version v = new Version(BusinessKey.of(42L), Sequence.of(JAN1_6AM_MICROS), Sequence.of(JAN1_6AM_MICROS + 1_500_000),
        Arrays.asList(null, "Oslo"));

    GenericRecord r = genericRead(avro.schema(), avro.encodeValue(v, ChangeKind.CLOSE));

    assertThat(r.get("customer_id")).isEqualTo(42L);
    assertThat(r.get("name")).isNull();
    assertThat(r.get("city").toString()).isEqualTo("Oslo");
    assertThat(r.get("valid_from")).isEqualTo(Instant.parse("2024-01-01T06:00:00Z"));
    assertThat(r.get("valid_to")).isEqualTo(Instant.parse("2024-01-01T06:00:01.500Z"));
    assertThat(r.get("is_current")).isEqualTo(false);
    assertThat(r.get("change").toString()).isEqualTo("close");
  }

  @Test
  void shouldWriteDecimalsDatesAndCompositeSequenceAsTheirLogicalTypes() throws IOException {
    VersionAvro avro = new VersionAvro(ALL_TYPES);

    GenericRecord r = genericRead(avro.schema(), avro.encodeValue(OPEN, ChangeKind.OPEN));

    assertThat(r.get("price")).isEqualTo(new BigDecimal("-12.50"));
    assertThat(r.get("born")).isEqualTo(LocalDate.of(1890, 5, 17));
    assertThat(r.get("seen")).isEqualTo(Instant.parse("2024-02-03T04:05:06.123456Z"));
    assertThat(r.get("from_ts")).isEqualTo(LocalDate.ofEpochDay(19_000));
    assertThat(r.get("from_ts_lsn")).isEqualTo(5L);
    assertThat(r.get("to_ts")).isNull();
    assertThat(r.get("current")).isEqualTo(true);
  }

  @Test
  void shouldWriteTheAvroBinaryEncodingByteForByte() {
    Version v = new Version(BusinessKey.of(1L), Sequence.of(1), null, Arrays.asList("a", "b"));

    // per the Avro specification: longs and union/enum indexes as zig-zag varints, strings as length + UTF-8
    assertThat(new VersionAvro(CUSTOMERS).encodeValue(v, ChangeKind.OPEN)).containsExactly(
        0x02, // customer_id 1
        0x02, 0x02, 'a', // name: union branch 1, length 1, "a"
        0x02, 0x02, 'b', // city: union branch 1, length 1, "b"
        0x02, // valid_from 1
        0x00, // valid_to: union branch 0 (null)
        0x01, // is_current true
        0x00); // change: enum index 0 (open)
  }

  @Test
  void shouldWriteTheSameBytesAsAvrosGenericWriterWithLogicalTypeConversions() throws IOException {
    VersionAvro avro = new VersionAvro(ALL_TYPES);
    GenericVersionAvro generic = new GenericVersionAvro(ALL_TYPES);
    for (Version v : List.of(OPEN, CLOSED_NULLS, OPEN.closedAt(Sequence.of(19_002, Long.MIN_VALUE)))) {
      for (ChangeKind kind : List.of(ChangeKind.OPEN, ChangeKind.CLOSE, ChangeKind.CORRECT)) {
        byte[] bytes = avro.encodeValue(v, kind);

        assertThat(bytes).isEqualTo(generic.encode(v, kind));
        assertThat(generic.decode(bytes)).isEqualTo(new VersionJson.Row(v, kind));
      }
    }
  }

  @Test
  void shouldRejectBytesThatAreNotAVersionRecord() {
    VersionAvro avro = new VersionAvro(CUSTOMERS);
    Version v = new Version(BusinessKey.of(1L), Sequence.of(1), null, Arrays.asList("a", "b"));
    byte[] good = avro.encodeValue(v, ChangeKind.OPEN);

    assertThatThrownBy(() -> avro.encodeValue(v, ChangeKind.RETRACT)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> avro.decodeValue(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> avro.decodeValue(Arrays.copyOf(good, good.length - 1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> avro.decodeValue(Arrays.copyOf(good, good.length + 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("left after the record");
    byte[] badEnum = good.clone();
    badEnum[badEnum.length - 1] = 40; // enum index 20
    assertThatThrownBy(() -> avro.decodeValue(badEnum)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("change index 20");
    assertThatThrownBy(() -> avro.decodeValue("{\"customer_id\":1}".getBytes()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldRefuseColumnsThatCannotBeAvroFields() {
    DimensionSpec clash = DimensionSpec.builder("c").column("id", ColumnType.LONG).column("change", ColumnType.STRING)
        .column("seq", ColumnType.LONG).key("id").sequence("seq").outputFormat(OutputFormat.AVRO).build();
    DimensionSpec badName = DimensionSpec.builder("c").column("id", ColumnType.LONG)
        .column("first-name", ColumnType.STRING).column("seq", ColumnType.LONG).key("id").sequence("seq")
        .outputFormat(OutputFormat.AVRO).build();

    assertThatThrownBy(() -> new VersionAvro(clash)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'change'");
    assertThatThrownBy(() -> new VersionAvro(badName)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("first-name");
  }

  @Test
  void shouldChooseTheCodecBySpecVersionsFormat() {
    assertThat(VersionRecordCodec.forSpec(CUSTOMERS)).isInstanceOf(VersionAvro.class);
    DimensionSpec json = DimensionSpec.builder("j").column("id", ColumnType.LONG).column("seq", ColumnType.LONG)
        .key("id").sequence("seq").build();
    assertThat(VersionRecordCodec.forSpec(json)).isInstanceOf(VersionJson.class);
  }

  private static GenericRecord genericRead(Schema schema, byte[] bytes) throws IOException {
    GenericData data = new GenericData();
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    data.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.DateConversion());
    data.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.TimestampMicrosConversion());
    GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(schema, schema, data);
    return reader.read(null, DecoderFactory.get().binaryDecoder(bytes, null));
  }
}
