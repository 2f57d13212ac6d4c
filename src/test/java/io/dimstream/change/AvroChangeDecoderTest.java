package io.dimstream.change;

import static io.dimstream.change.JsonChangeDecoderTest.accepted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.InputFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class AvroChangeDecoderTest {
  static final DimensionSpec CUSTOMERS = DimensionSpecLoader.load(Path.of("examples/customers-avro.yaml"));
  static final Schema CUSTOMER_CHANGE = new Schema.Parser().parse(CUSTOMERS.avroSchema());

  /** Composite key, date + millis-timestamp sequence, decimals, an enum, and fields the spec does not declare. */
  static final String ACCOUNTS_SCHEMA = """
      {"type": "record", "name": "AccountChange", "fields": [
        {"name": "region", "type": {"type": "enum", "name": "Region", "symbols": ["eu", "us"]}},
        {"name": "account_no", "type": "int"},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "batch_date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "changed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "meta", "type": {"type": "record", "name": "Meta", "fields": [
          {"name": "labels", "type": {"type": "map", "values": "long"}},
          {"name": "raw", "type": "bytes"}]}},
        {"name": "balance", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}]},
        {"name": "limit", "type": {"type": "fixed", "name": "Limit", "size": 8, "logicalType": "decimal",
          "precision": 18, "scale": 2}},
        {"name": "score", "type": "float"},
        {"name": "active", "type": "boolean"}
      ]}""";

  static DimensionSpec accounts() {
    return DimensionSpec.builder("accounts").inputFormat(InputFormat.AVRO).avroSchema(ACCOUNTS_SCHEMA)
        .column("region", "string").column("account_no", "int").column("batch_date", "date")
        .column("changed_at", "timestamp").column("balance", "decimal(12,2)").column("limit", "decimal(18,2)")
        .column("score", "double").column("active", "boolean").column("note", "string")
        .key("region", "account_no").sequence("batch_date", "changed_at").build();
  }

  static byte[] write(Schema schema, GenericRecord record) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<GenericRecord>(schema).write(record, enc);
      enc.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] customerChange(long id, String city, String op, long updatedAtMicros) {
    GenericRecord r = new GenericData.Record(CUSTOMER_CHANGE);
    r.put("customer_id", id);
    r.put("name", "Ada");
    r.put("email", null);
    r.put("city", city);
    r.put("tier", "gold");
    r.put("updated_at", updatedAtMicros);
    r.put("op", op);
    return write(CUSTOMER_CHANGE, r);
  }

  @Test
  void shouldDecodeRecordsWrittenWithTheCustomersChangeSchema() {
    ChangeDecoder decoder = ChangeDecoder.forSpec(CUSTOMERS);

    ChangeEvent e = accepted(decoder.decode(null, customerChange(42, "Lisbon", "u", TestSpecs.MAR_1_0800_MICROS + 7),
        0));

    assertThat(decoder).isInstanceOf(AvroChangeDecoder.class);
    assertThat(e).isEqualTo(ChangeEvent.upsert(BusinessKey.of(42L), Sequence.of(TestSpecs.MAR_1_0800_MICROS + 7),
        java.util.Arrays.asList("Ada", null, "Lisbon", "gold")));
  }

  @Test
  void shouldApplyTheDeleteRuleToAvroRecords() {
    ChangeEvent e = accepted(ChangeDecoder.forSpec(CUSTOMERS).decode(null,
        customerChange(42, null, "d", TestSpecs.MAR_1_0800_MICROS), 0));

    assertThat(e).isEqualTo(ChangeEvent.delete(BusinessKey.of(42L), Sequence.of(TestSpecs.MAR_1_0800_MICROS)));
  }

  @Test
  void shouldDecodeLogicalTypesCompositeKeysAndSkipUndeclaredFields() {
    Schema schema = new Schema.Parser().parse(ACCOUNTS_SCHEMA);
    Conversions.DecimalConversion decimals = new Conversions.DecimalConversion();
    Schema balanceSchema = schema.getField("balance").schema().getTypes().get(1);
    Schema limitSchema = schema.getField("limit").schema();
    GenericRecord meta = new GenericData.Record(schema.getField("meta").schema());
    meta.put("labels", Map.of("a", 1L, "b", 2L));
    meta.put("raw", ByteBuffer.wrap(new byte[] {1, 2, 3}));
    GenericRecord r = new GenericData.Record(schema);
    r.put("region", new GenericData.EnumSymbol(schema.getField("region").schema(), "us"));
    r.put("account_no", 7);
    r.put("tags", List.of("vip", "new"));
    r.put("batch_date", 20513);
    r.put("changed_at", 1_772_352_000_123L);
    r.put("meta", meta);
    r.put("balance", decimals.toBytes(new BigDecimal("-1234.50"), balanceSchema, LogicalTypes.decimal(12, 2)));
    r.put("limit", decimals.toFixed(new BigDecimal("1000000.00"), limitSchema, LogicalTypes.decimal(18, 2)));
    r.put("score", 0.1f);
    r.put("active", true);

    ChangeEvent e = accepted(ChangeDecoder.forSpec(accounts()).decode(null, write(schema, r), 0));

    assertThat(e.key()).isEqualTo(BusinessKey.of("us", 7));
    assertThat(e.sequence()).isEqualTo(Sequence.of(20513, TestSpecs.MAR_1_0800_MICROS + 123_000));
    assertThat(e.attributes()).containsExactly(new BigDecimal("-1234.50"), new BigDecimal("1000000.00"), 0.1, true,
        null);
  }

  @Test
  void shouldRejectTrailingAndShortBytesNamingTheField() {
    ChangeDecoder decoder = ChangeDecoder.forSpec(CUSTOMERS);
    byte[] good = customerChange(42, "Lisbon", "u", TestSpecs.MAR_1_0800_MICROS);
    byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
    byte[] shortened = java.util.Arrays.copyOf(good, good.length - 5); // cuts into updated_at

    assertThat(decoder.decode(null, trailing, 0)).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(RejectReason.MALFORMED_AVRO);
      assertThat(r.detail()).contains("ends at byte " + good.length, "has " + trailing.length + " bytes");
    });
    assertThat(decoder.decode(null, shortened, 0)).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(RejectReason.MALFORMED_AVRO);
      assertThat(r.detail()).contains("'updated_at'", "ends too early");
    });
  }

  @Test
  void shouldRejectAHugeStringLengthWithoutAllocatingIt() {
    // customer_id 1, name = union branch 1 (string) with a length of ~2^62 bytes
    byte[] value = {2, 2, (byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
        (byte) 0xff, 0x7f};

    assertThat(ChangeDecoder.forSpec(CUSTOMERS).decode(null, value, 0))
        .isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
          assertThat(r.reason()).isEqualTo(RejectReason.MALFORMED_AVRO);
          assertThat(r.detail()).contains("'name'", "exceeds");
        });
  }

  @Test
  void shouldRefuseASpecWhoseSequenceColumnIsNotInTheSchema() {
    String schema = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";
    DimensionSpec spec = DimensionSpec.builder("r").inputFormat(InputFormat.AVRO).avroSchema(schema)
        .column("id", "long").column("seq", "long").key("id").sequence("seq").build();

    assertThatThrownBy(() -> ChangeDecoder.forSpec(spec))
        .isInstanceOf(ChangeException.class)
        .hasMessageContaining("'seq'")
        .hasMessageContaining("Fix:");
  }

  @Test
  void shouldRefuseASpecWhoseColumnIsAnAvroArray() {
    String schema = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
        + "{\"name\":\"seq\",\"type\":\"long\"},{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}}]}";
    DimensionSpec spec = DimensionSpec.builder("r").inputFormat(InputFormat.AVRO).avroSchema(schema)
        .column("id", "long").column("seq", "long").column("tags", "string").key("id").sequence("seq").build();

    assertThatThrownBy(() -> ChangeDecoder.forSpec(spec))
        .isInstanceOf(ChangeException.class)
        .hasMessageContaining("'schema.tags'")
        .hasMessageContaining("Fix:");
  }
}
