package io.dimstream.codec;

import io.dimstream.types.Column;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.avro.Schema;

/**
 * The Avro record schema dimstream derives for a row of columns where no writer schema is given (an enrichment's
 * facts): one field per column, in order, of the column type's Avro type (a timestamp as {@code timestamp-micros},
 * a date as {@code date}, a decimal as {@code bytes} with its precision and scale); a column that may be null is a
 * union of {@code null} (first) and that type, with default null, so that a schema with one more such column can
 * still read the records of the one before (a registry's backward compatibility). {@link RowAvroWriter} writes such
 * records.
 */
public final class RowAvro {
  private RowAvro() {}

  /**
   * @param name     the record's name; characters Avro does not allow in names become {@code _}
   * @param required the columns that are never null: plain types, not unions
   */
  public static Schema schema(String name, List<Column> columns, Collection<String> required) {
    List<Schema.Field> fields = new ArrayList<>(columns.size());
    for (Column c : columns) {
      ColumnAvro avro = ColumnAvro.of(c.type());
      fields.add(required.contains(c.name()) ? new Schema.Field(c.name(), avro.schema())
          : new Schema.Field(c.name(), avro.nullable().schema(), null, Schema.Field.NULL_DEFAULT_VALUE));
    }
    String n = name.replaceAll("[^A-Za-z0-9_]", "_");
    return Schema.createRecord(n.isEmpty() || Character.isDigit(n.charAt(0)) ? "_" + n : n, null, null, false,
        fields);
  }
}
