package io.dimstream.change;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.registry.RegisteredSchema;
import io.dimstream.registry.SchemaRegistry;
import io.dimstream.registry.UnknownSchemaIdException;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import io.dimstream.spec.SchemaRegistrySettings;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** Debezium envelopes as Kafka Connect's AvroConverter writes them, over an in-memory table of schemas. */
class DebeziumAvroDecoderTest {
  /** The envelope of a Postgres connector's table (before/after rows, source block, op, ts_ms). */
  static final Schema ENVELOPE = new Schema.Parser().parse("""
      {"type": "record", "name": "Envelope", "namespace": "shop.public.customers", "fields": [
        {"name": "before", "type": ["null", {"type": "record", "name": "Value", "fields": [
          {"name": "customer_id", "type": "long"},
          {"name": "city", "type": ["null", "string"], "default": null}]}], "default": null},
        {"name": "after", "type": ["null", "Value"], "default": null},
        {"name": "source", "type": {"type": "record", "name": "Source", "namespace": "io.debezium.connector.postgresql",
          "fields": [{"name": "connector", "type": "string"}, {"name": "ts_ms", "type": "long"},
                     {"name": "lsn", "type": ["null", "long"], "default": null}]}},
        {"name": "op", "type": "string"},
        {"name": "ts_ms", "type": ["null", "long"], "default": null}]}""");
  private static final Schema VALUE = ENVELOPE.getField("after").schema().getTypes().get(1);
  private static final Schema NOT_AN_ENVELOPE = new Schema.Parser().parse("""
      {"type": "record", "name": "Customer", "fields": [{"name": "customer_id", "type": "long"}]}""");

  private final SchemaRegistry registry = new SchemaRegistry() {
    private final Map<Integer, RegisteredSchema> schemas = Map.of(
        1, new RegisteredSchema(1, "AVRO", ENVELOPE.toString()),
        2, new RegisteredSchema(2, "AVRO", NOT_AN_ENVELOPE.toString()));

    @Override
    public RegisteredSchema schema(int id) {
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

  private final DebeziumAvroDecoder decoder = new DebeziumAvroDecoder(DimensionSpec.builder("customers")
      .column("customer_id", "long").column("city", "string").column("lsn", "long")
      .key("customer_id").sequence("lsn").inputFormat(InputFormat.DEBEZIUM_AVRO)
      .schemaRegistry(SchemaRegistrySettings.of("http://registry.example:8081"))
      .delete(new DeleteRule.DebeziumOp()).build(), registry);

  @Test
  void shouldUpsertFromAfterAndDeleteFromBeforeOrderedBySourceLsn() {
    ChangeEvent upsert = accepted(decoder.decode(null, envelope("u", null, row(42, "Oslo"), 1001), 0));
    ChangeEvent delete = accepted(decoder.decode(null, envelope("d", row(42, "Oslo"), null, 1002), 0));

    assertThat(upsert).isEqualTo(ChangeEvent.upsert(BusinessKey.of(42L), Sequence.of(1001), List.of("Oslo")));
    assertThat(delete).isEqualTo(ChangeEvent.delete(BusinessKey.of(42L), Sequence.of(1002)));
    assertThat(decoder.decode(null, null, 0)).as("the tombstone after a delete").isInstanceOf(Decoded.Skipped.class);
  }

  @Test
  void shouldRejectAnUnknownOpAsForJsonEnvelopes() {
    assertThat(decoder.decode(null, envelope("t", null, row(42, "Oslo"), 1001), 0)).isInstanceOfSatisfying(
        Decoded.Rejected.class, r -> assertThat(r.reason()).isEqualTo(RejectReason.UNKNOWN_DEBEZIUM_OP));
  }

  @Test
  void shouldRejectUnframedValuesUnknownIdsAndSchemasThatAreNoEnvelope() {
    assertThat(reason(decoder.decode(null, "{\"op\":\"c\"}".getBytes(), 0))).isEqualTo(RejectReason.BAD_MAGIC_BYTE);
    assertThat(reason(decoder.decode(null, new byte[] {0, 0, 0, 0, 7, 0}, 0)))
        .isEqualTo(RejectReason.UNKNOWN_SCHEMA_ID);
    assertThat(decoder.decode(null, new byte[] {0, 0, 0, 0, 2, 84}, 0)).isInstanceOfSatisfying(
        Decoded.Rejected.class, r -> {
          assertThat(r.reason()).isEqualTo(RejectReason.UNRESOLVABLE_SCHEMA);
          assertThat(r.detail()).contains("no Debezium envelope");
        });
    byte[] cut = envelope("u", null, row(42, "Oslo"), 1001);
    assertThat(reason(decoder.decode(null, java.util.Arrays.copyOf(cut, cut.length - 3), 0)))
        .isEqualTo(RejectReason.MALFORMED_AVRO);
  }

  private static GenericRecord row(long id, String city) {
    GenericRecord r = new GenericData.Record(VALUE);
    r.put("customer_id", id);
    r.put("city", city);
    return r;
  }

  static byte[] envelope(String op, GenericRecord before, GenericRecord after, long lsn) {
    GenericRecord source = new GenericData.Record(ENVELOPE.getField("source").schema());
    source.put("connector", "postgresql");
    source.put("ts_ms", 1_772_352_000_000L);
    source.put("lsn", lsn);
    GenericRecord e = new GenericData.Record(ENVELOPE);
    e.put("before", before);
    e.put("after", after);
    e.put("source", source);
    e.put("op", op);
    e.put("ts_ms", 1_772_352_000_001L);
    byte[] body = AvroChangeDecoderTest.write(ENVELOPE, e);
    return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(1).put(body).array();
  }

  private static ChangeEvent accepted(Decoded d) {
    assertThat(d).isInstanceOf(Decoded.Accepted.class);
    return ((Decoded.Accepted) d).event();
  }

  private static String reason(Decoded d) {
    assertThat(d).isInstanceOf(Decoded.Rejected.class);
    return ((Decoded.Rejected) d).reason();
  }
}
