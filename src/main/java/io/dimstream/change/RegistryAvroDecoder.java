package io.dimstream.change;

import io.dimstream.registry.RegistryClosedException;
import io.dimstream.registry.SchemaRegistry;
import io.dimstream.registry.UnknownSchemaIdException;
import io.dimstream.spec.DimensionSpec;
import java.util.Optional;

/**
 * Decodes Avro records in the Confluent wire format: magic byte 0, the writer schema's id (4 bytes, big-endian),
 * then the record in Avro binary. The writer schema comes from the registry once per id ({@link WriterPlans}) and is
 * resolved against the spec's reader view ({@link ReaderSchema}) with Avro's rules: fields match by name in any
 * order, fields the spec lacks are read past, a field the writer lacks takes the reader's default, int/long/float
 * promote to the wider column types. Rejections: {@code bad-magic-byte}, {@code unknown-schema-id},
 * {@code unresolvable-schema}, and those of {@link AvroRows}. While the registry does not answer, {@link #decode}
 * waits; {@link #close} ends the wait with a {@link DecoderClosedException}. Thread-safe.
 */
public final class RegistryAvroDecoder implements ChangeDecoder {
  private final EventAssembler assembler;
  private final SchemaRegistry registry;
  private final WriterPlans plans;

  /**
   * @param registry closed with this decoder
   * @throws ChangeException when the spec's schema or column names cannot form a reader schema
   */
  public RegistryAvroDecoder(DimensionSpec spec, SchemaRegistry registry) {
    this.assembler = new EventAssembler(spec);
    this.registry = registry;
    int cacheSize = spec.schemaRegistry() == null ? io.dimstream.spec.SchemaRegistrySettings.DEFAULT_CACHE_SIZE
        : spec.schemaRegistry().cacheSize();
    this.plans = new WriterPlans(registry, ReaderSchema.of(spec), assembler.columns(), cacheSize);
  }

  @Override
  public Decoded decode(byte[] recordKey, byte[] value, long recordTimestampMillis) {
    if (value == null) {
      return assembler.tombstone(recordKey, recordTimestampMillis, JsonRecords.READER);
    }
    try {
      int id = WireFormat.schemaId(value);
      WriterPlans.Plan plan;
      try {
        plan = plans.plan(id);
      } catch (UnknownSchemaIdException e) {
        throw ChangeErrors.unknownSchemaId(e.getMessage());
      } catch (RegistryClosedException e) {
        throw new DecoderClosedException(e.getMessage(), e);
      }
      if (plan.rejected() != null) {
        throw plan.rejected();
      }
      Object[] raw = plan.rows().raw(value, WireFormat.HEADER);
      Object[] defaults = plan.defaults();
      for (int i = 0; i < raw.length; i++) {
        if (raw[i] == null && defaults[i] != null) {
          raw[i] = defaults[i];
        }
      }
      return new Decoded.Accepted(assembler.assemble(i -> plan.rows().typed(raw[i], i), false));
    } catch (RejectedRecord r) {
      return r.toDecoded();
    }
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
