package io.dimstream.spec;

import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/** Maps an Avro record schema ({@code schema:} in the spec) onto spec columns. */
final class AvroColumns {
  private AvroColumns() {}

  static List<Column> columns(String schemaJson, Path file) {
    Schema schema;
    try {
      schema = new Schema.Parser().parse(schemaJson);
    } catch (RuntimeException e) {
      throw SpecErrors.invalid(file, "schema", "not a valid Avro schema: " + e.getMessage(), "fix the .avsc file");
    }
    if (schema.getType() != Schema.Type.RECORD) {
      throw SpecErrors.invalid(file, "schema", "the Avro schema is a " + schema.getType() + ", not a record",
          "give an Avro record schema");
    }
    List<Column> out = new ArrayList<>();
    for (Schema.Field f : schema.getFields()) {
      out.add(new Column(f.name(), typeOf(f.name(), f.schema(), file)));
    }
    return out;
  }

  private static ColumnType typeOf(String field, Schema s, Path file) {
    if (s.getType() == Schema.Type.UNION) {
      List<Schema> nonNull = s.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).toList();
      if (nonNull.size() != 1) {
        throw SpecErrors.invalid(file, "schema." + field, "unions other than [null, T] are not supported",
            "make the field a single type or an optional one");
      }
      s = nonNull.get(0);
    }
    String logical = s.getLogicalType() == null ? null : s.getLogicalType().getName();
    if ("decimal".equals(logical)) {
      LogicalTypes.Decimal d = (LogicalTypes.Decimal) s.getLogicalType();
      return ColumnType.decimal(d.getPrecision(), d.getScale());
    }
    if ("date".equals(logical)) {
      return ColumnType.DATE;
    }
    if (logical != null && logical.startsWith("timestamp")) {
      return ColumnType.TIMESTAMP;
    }
    return switch (s.getType()) {
      case LONG -> ColumnType.LONG;
      case INT -> ColumnType.INT;
      case DOUBLE, FLOAT -> ColumnType.DOUBLE;
      case BOOLEAN -> ColumnType.BOOLEAN;
      case STRING, ENUM -> ColumnType.STRING;
      default -> throw SpecErrors.invalid(file, "schema." + field, "Avro type " + s.getType() + " is not supported",
          "use long, int, double, boolean, string, enum, decimal, date or timestamp-millis/micros");
    };
  }
}
