package io.dimstream.enrich;

import io.dimstream.codec.RowAvroWriter;
import io.dimstream.codec.WireFraming;

/**
 * The value of an enriched record in the Confluent wire format ({@code output.format: avro}): byte 0, the id under
 * which {@link EnrichmentSpec#enrichedAvroSchema} is registered, then the record in Avro binary; the same values as
 * {@link EnrichedRows#row}. Immutable and thread-safe.
 */
public final class EnrichedAvro {
  private final EnrichedRows rows;
  private final RowAvroWriter writer;
  private final int schemaId;

  /** @param schemaId the registry's id of {@code spec.enrichedAvroSchema()} */
  public EnrichedAvro(EnrichmentSpec spec, int schemaId) {
    this.rows = new EnrichedRows(spec);
    this.writer = new RowAvroWriter(spec.outputColumns(), spec.requiredOutputColumns());
    this.schemaId = schemaId;
  }

  public byte[] value(Enriched e) {
    return WireFraming.frame(schemaId, writer.write(rows.values(e)));
  }
}
