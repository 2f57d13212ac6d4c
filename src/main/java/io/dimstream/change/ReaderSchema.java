package io.dimstream.change;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * The reader's view of a record that Avro's schema resolution checks a writer schema against: the spec's own Avro
 * schema when it gives one ({@code schema:}, whose defaults fill fields a writer lacks), else one field per column.
 * Key and sequence fields of the column view have no default, so a writer without one is refused; every other
 * column is nullable with default null. The record takes the writer's name, which resolution also compares: a spec
 * reads a topic whatever its producers named their record.
 */
final class ReaderSchema {
  private final List<Schema.Field> fields;

  private ReaderSchema(List<Schema.Field> fields) {
    this.fields = fields;
  }

  /** @throws ChangeException when the spec's schema is unusable or a column's name is no Avro name */
  static ReaderSchema of(DimensionSpec spec) {
    if (spec.avroSchema() != null) {
      Schema s;
      try {
        s = new Schema.Parser().parse(spec.avroSchema());
      } catch (RuntimeException e) {
        throw ChangeErrors.unusableAvroSchema(spec, "not a valid Avro schema: " + e.getMessage());
      }
      if (s.getType() != Schema.Type.RECORD) {
        throw ChangeErrors.unusableAvroSchema(spec, "the schema is a " + s.getType() + ", not a record");
      }
      return new ReaderSchema(s.getFields());
    }
    List<Schema.Field> out = new ArrayList<>();
    for (Column c : spec.columns()) {
      boolean required = spec.key().contains(c.name()) || spec.sequence().contains(c.name());
      Schema nullable = Schema.createUnion(Schema.create(Schema.Type.NULL), avroType(c.type()));
      try {
        out.add(required ? new Schema.Field(c.name(), nullable) : new Schema.Field(c.name(), nullable, null,
            JsonProperties.NULL_VALUE));
      } catch (RuntimeException e) {
        throw ChangeErrors.unusableAvroSchema(spec, "column '" + c.name() + "' is no Avro field name (" + e.getMessage()
            + "); name columns with letters, digits and underscores");
      }
    }
    return new ReaderSchema(out);
  }

  /** The reader record, named as {@code writer} is. */
  Schema against(Schema writer) {
    List<Schema.Field> copies = new ArrayList<>();
    for (Schema.Field f : fields) {
      copies.add(new Schema.Field(f, f.schema()));
    }
    return Schema.createRecord(writer.getName(), null, writer.getNamespace(), false, copies);
  }

  /** The reader's field named {@code name}, or null. */
  Schema.Field field(String name) {
    for (Schema.Field f : fields) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }

  private static Schema avroType(ColumnType t) {
    return switch (t.kind()) {
      case LONG -> Schema.create(Schema.Type.LONG);
      case INT -> Schema.create(Schema.Type.INT);
      case DOUBLE -> Schema.create(Schema.Type.DOUBLE);
      case BOOLEAN -> Schema.create(Schema.Type.BOOLEAN);
      case STRING -> Schema.create(Schema.Type.STRING);
      case DATE -> LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case TIMESTAMP -> LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case DECIMAL -> LogicalTypes.decimal(t.precision(), t.scale()).addToSchema(Schema.create(Schema.Type.BYTES));
    };
  }
}
