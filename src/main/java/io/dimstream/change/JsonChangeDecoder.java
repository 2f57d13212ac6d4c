package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import java.util.List;

/**
 * Decodes a record value holding one JSON object whose fields are named as the spec's columns:
 * {@code {"customer_id": 42, "name": "Ada", "updated_at": "2026-03-01T09:00:00+01:00", "op": "u"}}.
 * Values are read with {@link io.dimstream.types.ColumnValues#fromJson}. An absent attribute is null, or
 * {@link io.dimstream.model.Absent} under {@code missing_fields: keep}; fields the spec does not declare are
 * reported, rejected or ignored as {@code unknown_fields} says. Thread-safe.
 */
public final class JsonChangeDecoder implements ChangeDecoder {
  private final EventAssembler assembler;
  private final Column[] columns;
  private final FlatJsonObject flat;

  public JsonChangeDecoder(DimensionSpec spec) {
    this.assembler = new EventAssembler(spec);
    this.columns = assembler.columns();
    this.flat = new FlatJsonObject(columns);
  }

  @Override
  public Decoded decode(byte[] recordKey, byte[] value, long recordTimestampMillis) {
    if (value == null) {
      return assembler.tombstone(recordKey, recordTimestampMillis, JsonRecords.READER);
    }
    try {
      StrictText.checkJson(value, "value");
      // most records are flat objects: read from the token stream; the tree takes the rest and every error
      FlatJsonObject.Fields fields = flat.read(value);
      if (fields != null) {
        List<String> unknown = assembler.unknownFields(fields.undeclared());
        JsonNode[] byColumn = fields.byColumn();
        return new Decoded.Accepted(assembler.assemble(i -> assembler.field(byColumn[i], columns[i]), false),
            unknown);
      }
      JsonNode row = JsonRecords.object(value, "value");
      List<String> unknown = assembler.unknownFields(row);
      return new Decoded.Accepted(assembler.assemble(i -> assembler.field(row.get(columns[i].name()), columns[i]),
          false), unknown);
    } catch (RejectedRecord r) {
      return r.toDecoded();
    }
  }
}
