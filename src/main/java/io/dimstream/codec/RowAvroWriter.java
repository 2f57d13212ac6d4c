package io.dimstream.codec;

import io.dimstream.types.Column;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.List;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Writes rows of columns as Avro binary records of {@link RowAvro#schema} with the same columns and required set:
 * one value per column, in order, each the column type's in-memory value (or null where the column may be null).
 * Immutable and thread-safe.
 */
public final class RowAvroWriter {
  private final List<Column> columns;
  private final ColumnAvro[] codecs;
  private final boolean[] required;

  /** @param required the columns that are never null, as given to {@link RowAvro#schema} */
  public RowAvroWriter(List<Column> columns, Collection<String> required) {
    this.columns = List.copyOf(columns);
    this.codecs = new ColumnAvro[columns.size()];
    this.required = new boolean[columns.size()];
    for (int i = 0; i < codecs.length; i++) {
      Column c = columns.get(i);
      this.required[i] = required.contains(c.name());
      this.codecs[i] = this.required[i] ? ColumnAvro.of(c.type()) : ColumnAvro.of(c.type()).nullable();
    }
  }

  /**
   * The record of {@code values}.
   *
   * @throws IllegalArgumentException when the count of values is not the count of columns, or a required column's
   *                                  value is null
   */
  public byte[] write(List<Object> values) {
    if (values.size() != codecs.length) {
      throw new IllegalArgumentException(values.size() + " values for " + codecs.length + " columns");
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    BinaryEncoder out = EncoderFactory.get().directBinaryEncoder(bytes, null);
    try {
      for (int i = 0; i < codecs.length; i++) {
        Object v = values.get(i);
        if (v == null && required[i]) {
          throw new IllegalArgumentException("column '" + columns.get(i).name() + "' is never null, but has no value");
        }
        codecs[i].write(out, v);
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }
}
