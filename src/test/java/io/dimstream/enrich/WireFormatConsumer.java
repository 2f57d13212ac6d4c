package io.dimstream.enrich;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;

/**
 * Reads a value in the Confluent wire format as a downstream Avro consumer does: the schema id from the header, the
 * record with the writer schema (fetched by that id) through Avro's generic reader, logical types converted by
 * Avro's own conversions ({@code timestamp-micros} to an Instant, {@code date} to a LocalDate, {@code decimal} to a
 * BigDecimal).
 */
public final class WireFormatConsumer {
  private static final GenericData MODEL = new GenericData();

  static {
    MODEL.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    MODEL.addLogicalTypeConversion(new TimeConversions.DateConversion());
    MODEL.addLogicalTypeConversion(new Conversions.DecimalConversion());
  }

  private WireFormatConsumer() {}

  /** The schema id of a framed value; an AssertionError when the value does not start with byte 0. */
  public static int schemaId(byte[] value) {
    ByteBuffer header = ByteBuffer.wrap(value, 0, 5);
    if (header.get() != 0) {
      throw new AssertionError("no magic byte 0: " + (value[0] & 0xff));
    }
    return header.getInt();
  }

  /** The record behind the header, read with {@code writer}. */
  public static GenericRecord read(byte[] value, Schema writer) {
    schemaId(value);
    try {
      return new GenericDatumReader<GenericRecord>(writer, writer, MODEL).read(null,
          DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The record's field values in field order, Avro's strings as Java strings. */
  public static List<Object> values(GenericRecord record) {
    List<Object> out = new ArrayList<>();
    for (Schema.Field f : record.getSchema().getFields()) {
      Object v = record.get(f.pos());
      out.add(v instanceof Utf8 u ? u.toString() : v);
    }
    return out;
  }
}
