package io.dimstream.codec;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;

/**
 * Avro version record values through Avro's own generic writer and reader with logical-type conversions, driven by
 * {@link VersionAvro#schema()} alone: the reference the hand-kept encoder is checked and benchmarked against.
 */
final class GenericVersionAvro {
  private final Schema schema;
  private final int keys;
  private final int attributes;
  private final ColumnType[] sequenceTypes;
  private final GenericDatumWriter<GenericRecord> writer;
  private final GenericDatumReader<GenericRecord> reader;
  private final Schema changeSchema;

  GenericVersionAvro(DimensionSpec spec) {
    this.schema = new VersionAvro(spec).schema();
    this.keys = spec.keyColumns().size();
    this.attributes = spec.attributeColumns().size();
    this.sequenceTypes = spec.sequenceColumns().stream().map(Column::type).toArray(ColumnType[]::new);
    GenericData data = new GenericData();
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    data.addLogicalTypeConversion(new TimeConversions.DateConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    this.writer = new GenericDatumWriter<>(schema, data);
    this.reader = new GenericDatumReader<>(schema, schema, data);
    this.changeSchema = schema.getField(VersionAvro.CHANGE_FIELD).schema();
  }

  byte[] encode(Version version, ChangeKind kind) {
    GenericData.Record r = new GenericData.Record(schema);
    int f = 0;
    for (Object v : version.key().values()) {
      r.put(f++, v);
    }
    for (Object v : version.attributes()) {
      r.put(f++, v);
    }
    Sequence from = version.validFrom();
    Sequence to = version.validTo();
    r.put(f++, part(from, 0));
    r.put(f++, to == null ? null : part(to, 0));
    for (int i = 1; i < sequenceTypes.length; i++) {
      r.put(f++, part(from, i));
    }
    for (int i = 1; i < sequenceTypes.length; i++) {
      r.put(f++, to == null ? null : part(to, i));
    }
    r.put(f++, version.isCurrent());
    r.put(f, new GenericData.EnumSymbol(changeSchema, kind.wireName()));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
    try {
      writer.write(r, out);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  VersionJson.Row decode(byte[] bytes) throws IOException {
    BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, null);
    GenericRecord r = reader.read(null, in);
    if (!in.isEnd()) {
      throw new IllegalArgumentException("bytes are left after the record");
    }
    int f = 0;
    List<Object> key = new ArrayList<>(keys);
    for (int i = 0; i < keys; i++) {
      key.add(value(r.get(f++)));
    }
    List<Object> attrs = new ArrayList<>(attributes);
    for (int i = 0; i < attributes; i++) {
      attrs.add(value(r.get(f++)));
    }
    int n = sequenceTypes.length;
    long[] from = new long[n];
    long[] to = new long[n];
    from[0] = partOf(r.get(f++));
    Object to0 = r.get(f++);
    for (int i = 1; i < n; i++) {
      from[i] = partOf(r.get(f++));
    }
    for (int i = 1; i < n; i++) {
      Object t = r.get(f++);
      to[i] = t == null ? 0 : partOf(t);
    }
    if (to0 != null) {
      to[0] = partOf(to0);
    }
    boolean current = (Boolean) r.get(f++);
    ChangeKind kind = ChangeKind.fromWire(r.get(f).toString());
    Version v = new Version(new BusinessKey(key), Sequence.of(from), to0 == null ? null : Sequence.of(to), attrs);
    if (current != v.isCurrent()) {
      throw new IllegalArgumentException("is_current is " + current + " but valid_to is " + v.validTo());
    }
    return new VersionJson.Row(v, kind);
  }

  private Object part(Sequence s, int i) {
    long p = s.part(i);
    return sequenceTypes[i].kind() == ColumnType.Kind.DATE ? (Object) Math.toIntExact(p) : (Object) p;
  }

  private static long partOf(Object v) {
    if (v instanceof Instant t) {
      return ChronoUnit.MICROS.between(Instant.EPOCH, t);
    }
    if (v instanceof LocalDate d) {
      return d.toEpochDay();
    }
    return ((Number) v).longValue();
  }

  private static Object value(Object v) {
    return v instanceof Utf8 u ? u.toString() : v;
  }
}
