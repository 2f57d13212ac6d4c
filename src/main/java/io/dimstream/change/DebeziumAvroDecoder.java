package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.registry.RegisteredSchema;
import io.dimstream.registry.RegistryClosedException;
import io.dimstream.registry.SchemaRegistry;
import io.dimstream.registry.UnknownSchemaIdException;
import io.dimstream.spec.DimensionSpec;
import java.io.IOException;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Decodes Debezium change envelopes written by Kafka Connect's AvroConverter: the Confluent wire format (magic byte
 * 0, the schema id, Avro binary), the envelope's writer schema from the registry once per id. The envelope is read
 * with its own writer schema, turned into the JSON that Connect's JsonConverter would have written
 * ({@link AvroJson}), and read by the rules of {@link DebeziumJsonDecoder}: the same ops, ordering by
 * {@code source.*} fields, deletes from {@code before}, tombstones after deletes skipped. The record key (framed
 * too) is not read: the business key comes from the envelope. Rejections: {@code bad-magic-byte},
 * {@code unknown-schema-id}, {@code unresolvable-schema} (a writer schema that is no envelope), {@code
 * malformed-avro}, and those of {@link DebeziumJsonDecoder}. While the registry does not answer, {@link #decode}
 * waits. Thread-safe.
 */
public final class DebeziumAvroDecoder implements ChangeDecoder {
  /** An envelope schema, or why records of that id cannot be read. */
  private record Plan(Schema writer, GenericDatumReader<GenericRecord> reader, RejectedRecord rejected) {}

  private final DebeziumJsonDecoder envelopes;
  private final SchemaRegistry registry;
  private final SchemaCache<Plan> plans;

  /** @param registry closed with this decoder */
  public DebeziumAvroDecoder(DimensionSpec spec, SchemaRegistry registry) {
    this.envelopes = new DebeziumJsonDecoder(spec);
    this.registry = registry;
    this.plans = new SchemaCache<>(registry, spec.schemaRegistry() == null
        ? io.dimstream.spec.SchemaRegistrySettings.DEFAULT_CACHE_SIZE : spec.schemaRegistry().cacheSize(),
        DebeziumAvroDecoder::compile);
  }

  @Override
  public Decoded decode(byte[] recordKey, byte[] value, long recordTimestampMillis) {
    if (value == null) {
      return envelopes.tombstone(recordKey, recordTimestampMillis);
    }
    try {
      int id = WireFormat.schemaId(value);
      Plan plan;
      try {
        plan = plans.get(id);
      } catch (UnknownSchemaIdException e) {
        throw ChangeErrors.unknownSchemaId(e.getMessage());
      } catch (RegistryClosedException e) {
        throw new DecoderClosedException(e.getMessage(), e);
      }
      if (plan.rejected() != null) {
        throw plan.rejected();
      }
      GenericRecord envelope;
      try {
        BinaryDecoder in = DecoderFactory.get().binaryDecoder(value, WireFormat.HEADER,
            value.length - WireFormat.HEADER, null);
        envelope = plan.reader().read(null, in);
        if (!in.isEnd()) {
          throw ChangeErrors.malformedEnvelope(id, "bytes are left after the envelope");
        }
      } catch (IOException | RuntimeException e) {
        throw ChangeErrors.malformedEnvelope(id, String.valueOf(e.getMessage()));
      }
      JsonNode json = AvroJson.toJson(envelope, plan.writer(), "");
      return envelopes.envelope(json);
    } catch (RejectedRecord r) {
      return r.toDecoded();
    }
  }

  private static Plan compile(RegisteredSchema registered) {
    int id = registered.id();
    if (!RegisteredSchema.AVRO.equalsIgnoreCase(registered.type())) {
      return new Plan(null, null, ChangeErrors.notAvroSchema(id, registered.type()));
    }
    Schema writer;
    try {
      writer = new Schema.Parser().parse(registered.text());
    } catch (RuntimeException e) {
      return new Plan(null, null, ChangeErrors.unresolvableSchema(id, "the registry's schema is no valid Avro"
          + " schema: " + e.getMessage()));
    }
    if (writer.getType() != Schema.Type.RECORD || writer.getField("op") == null
        || writer.getField("after") == null && writer.getField("before") == null) {
      return new Plan(null, null, ChangeErrors.notAnEnvelope(id, writer.getFullName()));
    }
    return new Plan(writer, new GenericDatumReader<>(writer), null);
  }

  @Override
  public Optional<String> outage() {
    return registry.outage();
  }

  @Override
  public void close() {
    registry.close();
  }
}
