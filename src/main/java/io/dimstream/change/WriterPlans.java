package io.dimstream.change;

import io.dimstream.registry.RegisteredSchema;
import io.dimstream.registry.SchemaRegistry;
import io.dimstream.types.Column;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

/**
 * One reading plan per writer schema id, fetched from the registry once and kept ({@link SchemaCache}). A writer schema that Avro's resolution rules cannot read as the spec's reader view is kept
 * too, as its rejection: every record of that id is refused without asking the registry again. Thread-safe.
 */
final class WriterPlans {

  /**
   * How records of one writer schema are read.
   *
   * @param rows     the writer's fields onto the columns; null when {@code rejected} is set
   * @param defaults per column, the reader's default when the writer lacks the field (else null)
   * @param rejected why no record of this schema can be read; null when it can
   */
  record Plan(AvroRows rows, Object[] defaults, RejectedRecord rejected) {}

  private final ReaderSchema reader;
  private final Column[] columns;
  private final SchemaCache<Plan> cache;

  WriterPlans(SchemaRegistry registry, ReaderSchema reader, Column[] columns, int cacheSize) {
    this.reader = reader;
    this.columns = columns.clone();
    this.cache = new SchemaCache<>(registry, cacheSize, this::compile);
  }

  /**
   * The plan for schema {@code id}; waits while the registry is unreachable (see {@link SchemaRegistry#schema}).
   *
   * @throws io.dimstream.registry.UnknownSchemaIdException when the registry has no such id
   */
  Plan plan(int id) {
    return cache.get(id);
  }

  private Plan compile(RegisteredSchema registered) {
    int id = registered.id();
    if (!RegisteredSchema.AVRO.equalsIgnoreCase(registered.type())) {
      return rejected(ChangeErrors.notAvroSchema(id, registered.type()));
    }
    Schema writer;
    try {
      writer = new Schema.Parser().parse(registered.text());
    } catch (RuntimeException e) {
      return rejected(ChangeErrors.unresolvableSchema(id, "the registry's schema is no valid Avro schema: "
          + e.getMessage()));
    }
    if (writer.getType() != Schema.Type.RECORD) {
      return rejected(ChangeErrors.unresolvableSchema(id, "the writer schema is a " + writer.getType()
          + ", not a record"));
    }
    Schema readerSchema = reader.against(writer);
    SchemaCompatibility.SchemaPairCompatibility c =
        SchemaCompatibility.checkReaderWriterCompatibility(readerSchema, writer);
    if (c.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
      return rejected(ChangeErrors.unresolvableSchema(id, incompatibilities(c.getResult(), readerSchema)));
    }
    AvroRows rows;
    try {
      rows = new AvroRows(writer, columns);
    } catch (AvroRows.UnusableField e) {
      return rejected(ChangeErrors.unresolvableSchema(id, e.getMessage()));
    }
    Object[] defaults = new Object[columns.length];
    for (int i = 0; i < columns.length; i++) {
      Schema.Field r = reader.field(columns[i].name());
      if (writer.getField(columns[i].name()) == null && r != null && r.hasDefaultValue()) {
        Object d = r.defaultVal();
        defaults[i] = d == JsonProperties.NULL_VALUE ? null : d;
      }
    }
    return new Plan(rows, defaults, null);
  }

  private static Plan rejected(RejectedRecord r) {
    return new Plan(null, null, r);
  }

  /** Avro's findings, each with the reader field it is about ({@code /fields/2/type} names the third field). */
  private static String incompatibilities(SchemaCompatibility.SchemaCompatibilityResult result, Schema reader) {
    List<String> out = new ArrayList<>();
    for (SchemaCompatibility.Incompatibility i : result.getIncompatibilities()) {
      String where = i.getLocation();
      String[] parts = where.split("/");
      if (parts.length > 2 && "fields".equals(parts[1]) && parts[2].matches("\\d+")
          && Integer.parseInt(parts[2]) < reader.getFields().size()) {
        where = "field '" + reader.getFields().get(Integer.parseInt(parts[2])).name() + "'";
      }
      String message = i.getMessage();
      if (i.getType() == SchemaCompatibility.SchemaIncompatibilityType.READER_FIELD_MISSING_DEFAULT_VALUE) {
        out.add("field '" + message + "' is a key or sequence column (or has no default in the spec's schema) but"
            + " the writer schema lacks it");
      } else {
        out.add(where + ": " + message);
      }
    }
    return String.join("; ", out);
  }
}
