package io.dimstream.change;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.registry.RegisteredSchema;
import io.dimstream.registry.SchemaRegistry;
import io.dimstream.registry.UnknownSchemaIdException;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import io.dimstream.spec.SchemaRegistrySettings;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** The wire format's header, Avro's resolution rules and the rejections, over an in-memory table of schemas. */
class RegistryAvroDecoderTest {
  private static final long MICROS = 1_767_225_600_000_000L; // 2026-01-01T00:00:00Z

  /** Writer 1: the spec's fields in its own order, the sequence in microseconds. */
  private static final Schema V1 = parse("""
      {"type": "record", "name": "Customer", "namespace": "shop", "fields": [
        {"name": "customer_id", "type": "long"},
        {"name": "updated_at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "city", "type": ["null", "string"]}]}""");
  /** Writer 2: another order, an int key (promoted to long), millis, a field the spec lacks and an added one. */
  private static final Schema V2 = parse("""
      {"type": "record", "name": "Customer", "namespace": "shop", "fields": [
        {"name": "city", "type": "string"},
        {"name": "loyalty", "type": {"type": "array", "items": "int"}},
        {"name": "updated_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "customer_id", "type": "int"},
        {"name": "tier", "type": "string", "default": "basic"}]}""");
  private static final Schema NO_KEY = parse("""
      {"type": "record", "name": "Customer", "fields": [
        {"name": "updated_at", "type": "long"}, {"name": "city", "type": "string"}]}""");
  private static final Schema CITY_AS_INT = parse("""
      {"type": "record", "name": "Customer", "fields": [
        {"name": "customer_id", "type": "long"}, {"name": "updated_at", "type": "long"}, {"name": "city", "type": "int"}]}""");

  private final Map<Integer, RegisteredSchema> schemas = new HashMap<>(Map.of(
      1, new RegisteredSchema(1, "AVRO", V1.toString()), 2, new RegisteredSchema(2, "AVRO", V2.toString()),
      3, new RegisteredSchema(3, "AVRO", NO_KEY.toString()), 4, new RegisteredSchema(4, "AVRO", CITY_AS_INT.toString()),
      5, new RegisteredSchema(5, "PROTOBUF", "syntax = \"proto3\"; message Customer { int64 customer_id = 1; }")));
  private final List<Integer> asked = new ArrayList<>();
  private final SchemaRegistry registry = new SchemaRegistry() {
    @Override
    public RegisteredSchema schema(int id) {
      asked.add(id);
      RegisteredSchema s = schemas.get(id);
      if (s == null) {
        throw new UnknownSchemaIdException(id, "no schema " + id);
      }
      return s;
    }

    @Override
    public Optional<String> outage() {
      return Optional.empty();
    }

    @Override
    public void close() {}
  };

  private static DimensionSpec spec(String avroSchema) {
    var b = DimensionSpec.builder("customers").inputFormat(InputFormat.AVRO)
        .schemaRegistry(SchemaRegistrySettings.of("http://registry.example:8081"));
    if (avroSchema != null) {
      b.avroSchema(avroSchema);
    }
    return b.column("customer_id", "long").column("updated_at", "timestamp").column("city", "string")
        .column("tier", "string").key("customer_id").sequence("updated_at").build();
  }

  @Test
  void shouldReadInterleavedWriterVersionsByNameWithPromotionsAndExtraFields() {
    RegistryAvroDecoder decoder = new RegistryAvroDecoder(spec(null), registry);
    GenericRecord a = new GenericData.Record(V1);
    a.put("customer_id", 7L);
    a.put("updated_at", MICROS);
    a.put("city", "Oslo");
    GenericRecord b = new GenericData.Record(V2);
    b.put("city", "Bergen");
    b.put("loyalty", List.of(1, 2, 3));
    b.put("updated_at", MICROS / 1000 + 1000);
    b.put("customer_id", 7);
    b.put("tier", "gold");

    assertThat(event(decoder.decode(null, framed(1, V1, a), -1)))
        .isEqualTo(ChangeEvent.upsert(BusinessKey.of(7L), Sequence.of(MICROS), Arrays.asList("Oslo", null)));
    assertThat(event(decoder.decode(null, framed(2, V2, b), -1)))
        .isEqualTo(ChangeEvent.upsert(BusinessKey.of(7L), Sequence.of(MICROS + 1_000_000), List.of("Bergen", "gold")));
    assertThat(event(decoder.decode(null, framed(1, V1, a), -1)).attributes()).containsExactly("Oslo", null);
    assertThat(asked).as("each writer schema is fetched once").containsExactly(1, 2);
  }

  @Test
  void shouldFillAFieldTheWriterLacksWithTheDefaultOfTheSpecsSchema() {
    String readerSchema = """
        {"type": "record", "name": "Anything", "fields": [
          {"name": "customer_id", "type": "long"},
          {"name": "updated_at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
          {"name": "city", "type": ["null", "string"], "default": null},
          {"name": "tier", "type": "string", "default": "basic"}]}""";
    RegistryAvroDecoder decoder = new RegistryAvroDecoder(spec(readerSchema), registry);
    GenericRecord a = new GenericData.Record(V1);
    a.put("customer_id", 7L);
    a.put("updated_at", MICROS);
    a.put("city", "Oslo");

    assertThat(event(decoder.decode(null, framed(1, V1, a), -1)).attributes()).containsExactly("Oslo", "basic");
  }

  @Test
  void shouldRejectAValueThatDoesNotStartWithTheMagicByte() {
    RegistryAvroDecoder decoder = new RegistryAvroDecoder(spec(null), registry);

    assertThat(decoder.decode(null, "{\"customer_id\": 7}".getBytes(), -1)).isInstanceOfSatisfying(
        Decoded.Rejected.class, r -> {
          assertThat(r.reason()).isEqualTo(RejectReason.BAD_MAGIC_BYTE);
          assertThat(r.detail()).contains("starts with byte 123").contains("looks like JSON");
        });
    assertThat(decoder.decode(null, new byte[] {0, 0, 1}, -1)).isInstanceOfSatisfying(Decoded.Rejected.class,
        r -> assertThat(r.reason()).isEqualTo(RejectReason.BAD_MAGIC_BYTE));
    assertThat(asked).isEmpty();
  }

  @Test
  void shouldRejectAnIdTheRegistryDoesNotHold() {
    RegistryAvroDecoder decoder = new RegistryAvroDecoder(spec(null), registry);

    assertThat(decoder.decode(null, new byte[] {0, 0, 0, 0, 99, 2}, -1)).isInstanceOfSatisfying(
        Decoded.Rejected.class, r -> {
          assertThat(r.reason()).isEqualTo(RejectReason.UNKNOWN_SCHEMA_ID);
          assertThat(r.detail()).contains("no schema 99");
        });
  }

  @Test
  void shouldRejectWriterSchemasThatCannotBeResolvedNamingTheField() {
    RegistryAvroDecoder decoder = new RegistryAvroDecoder(spec(null), registry);

    assertThat(decoder.decode(null, new byte[] {0, 0, 0, 0, 3, 2, 0}, -1)).isInstanceOfSatisfying(
        Decoded.Rejected.class, r -> {
          assertThat(r.reason()).isEqualTo(RejectReason.UNRESOLVABLE_SCHEMA);
          assertThat(r.detail()).contains("Writer schema 3").contains("'customer_id'");
        });
    assertThat(decoder.decode(null, new byte[] {0, 0, 0, 0, 4, 2, 2, 2}, -1)).isInstanceOfSatisfying(
        Decoded.Rejected.class, r -> {
          assertThat(r.reason()).isEqualTo(RejectReason.UNRESOLVABLE_SCHEMA);
          assertThat(r.detail()).contains("field 'city'");
        });
    assertThat(decoder.decode(null, new byte[] {0, 0, 0, 0, 5, 2}, -1)).isInstanceOfSatisfying(
        Decoded.Rejected.class, r -> {
          assertThat(r.reason()).isEqualTo(RejectReason.UNRESOLVABLE_SCHEMA);
          assertThat(r.detail()).contains("PROTOBUF");
        });
    decoder.decode(null, new byte[] {0, 0, 0, 0, 3, 2, 0}, -1);
    assertThat(asked).as("a schema that cannot be resolved is not fetched again").containsExactly(3, 4, 5);
  }

  @Test
  void shouldReadABytesFieldAsAStringColumnAndRefuseBytesThatAreNoText() {
    Schema bytesCity = parse("""
        {"type": "record", "name": "Customer", "fields": [
          {"name": "customer_id", "type": "long"}, {"name": "updated_at", "type": "long"},
          {"name": "city", "type": ["null", "bytes"]}]}""");
    schemas.put(6, new RegisteredSchema(6, "AVRO", bytesCity.toString()));
    RegistryAvroDecoder decoder = new RegistryAvroDecoder(spec(null), registry);
    GenericRecord a = new GenericData.Record(bytesCity);
    a.put("customer_id", 7L);
    a.put("updated_at", MICROS);
    a.put("city", ByteBuffer.wrap("Tromsø".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    GenericRecord b = new GenericData.Record(bytesCity);
    b.put("customer_id", 7L);
    b.put("updated_at", MICROS + 1);
    b.put("city", ByteBuffer.wrap(new byte[] {(byte) 0xc0, (byte) 0xaf}));

    assertThat(event(decoder.decode(null, framed(6, bytesCity, a), -1)).attributes()).containsExactly("Tromsø", null);
    assertThat(decoder.decode(null, framed(6, bytesCity, b), -1)).isInstanceOfSatisfying(Decoded.Rejected.class,
        r -> assertThat(r.reason()).isEqualTo(RejectReason.BAD_ENCODING));
  }

  @Test
  void shouldRejectARecordCutShortAfterItsHeaderAsMalformedAvro() {
    RegistryAvroDecoder decoder = new RegistryAvroDecoder(spec(null), registry);
    GenericRecord a = new GenericData.Record(V1);
    a.put("customer_id", 7L);
    a.put("updated_at", MICROS);
    a.put("city", "Oslo");
    byte[] whole = framed(1, V1, a);

    assertThat(decoder.decode(null, Arrays.copyOf(whole, whole.length - 2), -1)).isInstanceOfSatisfying(
        Decoded.Rejected.class, r -> {
          assertThat(r.reason()).isEqualTo(RejectReason.MALFORMED_AVRO);
          assertThat(r.detail()).contains("field 'city'").contains("the schema the header's id names");
        });
  }

  private static ChangeEvent event(Decoded d) {
    assertThat(d).isInstanceOf(Decoded.Accepted.class);
    return ((Decoded.Accepted) d).event();
  }

  private static byte[] framed(int id, Schema schema, GenericRecord record) {
    byte[] body = AvroChangeDecoderTest.write(schema, record);
    return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(id).put(body).array();
  }

  private static Schema parse(String json) {
    return new Schema.Parser().parse(json);
  }
}
