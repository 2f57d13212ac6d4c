package io.dimstream.change;

import io.dimstream.spec.DimensionSpec;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * Decodes a record value holding one Avro record in plain binary encoding (no container file, no framing, no
 * schema-registry prefix), written with the spec's schema ({@link DimensionSpec#avroSchema()}), with {@link AvroRows}:
 * bytes left after the record, a short value or an invalid encoding are rejected as {@code malformed-avro}; logical
 * types map onto column values. Fields the spec does not declare are read past; columns the schema lacks are null.
 * Thread-safe.
 */
public final class AvroChangeDecoder implements ChangeDecoder {
  private final EventAssembler assembler;
  private final AvroRows rows;

  /** @throws ChangeException when the spec has no Avro record schema, or a column's field cannot hold its values */
  public AvroChangeDecoder(DimensionSpec spec) {
    this.assembler = new EventAssembler(spec);
    if (spec.avroSchema() == null) {
      throw ChangeErrors.unusableAvroSchema(spec, "the avro input format needs the writer schema");
    }
    Schema schema;
    try {
      schema = new Schema.Parser().parse(spec.avroSchema());
    } catch (SchemaParseException e) {
      throw ChangeErrors.unusableAvroSchema(spec, "not a valid Avro schema: " + e.getMessage());
    }
    if (schema.getType() != Schema.Type.RECORD) {
      throw ChangeErrors.unusableAvroSchema(spec, "the schema is a " + schema.getType() + ", not a record");
    }
    try {
      this.rows = new AvroRows(schema, assembler.columns());
    } catch (AvroRows.UnusableField e) {
      throw ChangeErrors.unusableAvroColumn(spec, e.field(), e.avroType());
    }
    for (String required : concat(spec.key(), spec.sequence())) {
      if (schema.getField(required) == null) {
        throw ChangeErrors.unusableAvroSchema(spec, "column '" + required + "' is a key or sequence column but not a"
            + " field of the schema, so no record could carry it");
      }
    }
  }

  @Override
  public Decoded decode(byte[] recordKey, byte[] value, long recordTimestampMillis) {
    if (value == null) {
      return assembler.tombstone(recordKey, recordTimestampMillis, JsonRecords.READER);
    }
    try {
      Object[] raw = rows.raw(value);
      return new Decoded.Accepted(assembler.assemble(i -> rows.typed(raw[i], i), false));
    } catch (RejectedRecord r) {
      return r.toDecoded();
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
