package io.dimstream.codec;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputColumns;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The Avro record format of a dimension's versions topic ({@code versions_format: avro}).
 *
 * <p>Record <b>key</b>: the JSON identity of {@link VersionJson#encodeKey}, unchanged, so partitioning and compaction
 * are the same in both formats. Record <b>value</b>: one Avro record in plain binary encoding (no container file,
 * no framing, no schema-registry prefix) written with {@link #schema()}, or null for a retraction.
 *
 * <p>The schema is built from the template {@code schemas/version.avsc} (on the class path): a record named
 * {@code <name>_version} (characters other than letters, digits and {@code _} become {@code _}) in the template's
 * namespace, whose fields are the key columns, the attribute columns (nullable, default null; in
 * {@link DimensionSpec#attributeColumns()} order), {@code valid_from}, {@code valid_to} (nullable), the extra
 * {@code valid_from_<c>} then {@code valid_to_<c>} columns of a composite sequence (the {@code valid_to} ones
 * nullable), {@code is_current}, and the template's {@code change} enum ({@code open}, {@code close},
 * {@code correct}; a retraction has no value). Validity fields are renamed after the spec's {@code output} section.
 * Column types map as {@code long}, {@code int}, {@code double}, {@code boolean}, {@code string}, {@code decimal(p,s)}
 * as {@code bytes} with the {@code decimal} logical type, {@code date} as {@code int}+{@code date}, {@code timestamp}
 * as {@code long}+{@code timestamp-micros} (finer digits are truncated to microseconds). Validity fields hold the
 * sequence column's value: {@code timestamp-micros}, {@code date}, or {@code long} for numbers. The interval is
 * half-open: {@code [valid_from, valid_to)}.
 *
 * <p>Instances are immutable and thread-safe. Decoding throws {@link IllegalArgumentException} on bytes that are not
 * such a record (short, trailing bytes, an impossible union branch or enum index).
 */
public final class VersionAvro implements VersionRecordCodec {
  /** Class-path location of the template schema. */
  public static final String TEMPLATE = "/schemas/version.avsc";
  /** The template's field that says why the record was emitted. */
  public static final String CHANGE_FIELD = "change";

  private static final String VALID_FROM = "valid_from";
  private static final String VALID_TO = "valid_to";
  private static final String IS_CURRENT = "is_current";

  private final VersionJson json;
  private final Schema schema;
  private final ColumnAvro[] keyCodecs;
  private final ColumnAvro[] attributeCodecs;
  private final ColumnType[] sequenceTypes;
  private final List<String> changeSymbols;

  /**
   * @throws IllegalArgumentException when the spec's columns cannot form an Avro record: a column name that is not
   *                                  a valid Avro name, or one that clashes with a field of the template
   * @throws IllegalStateException    when the template is missing from the class path or is not usable
   */
  public VersionAvro(DimensionSpec spec) {
    this.json = new VersionJson(spec);
    List<Column> keys = spec.keyColumns();
    List<Column> attributes = spec.attributeColumns();
    List<Column> sequence = spec.sequenceColumns();
    this.keyCodecs = keys.stream().map(c -> ColumnAvro.of(c.type())).toArray(ColumnAvro[]::new);
    this.attributeCodecs = attributes.stream().map(c -> ColumnAvro.of(c.type()).nullable())
        .toArray(ColumnAvro[]::new);
    this.sequenceTypes = sequence.stream().map(Column::type).toArray(ColumnType[]::new);

    Schema template = template();
    Schema.Field change = template.getField(CHANGE_FIELD);
    if (change == null || change.schema().getType() != Schema.Type.ENUM) {
      throw new IllegalStateException(TEMPLATE + " has no enum field '" + CHANGE_FIELD + "'");
    }
    this.changeSymbols = change.schema().getEnumSymbols();
    for (ChangeKind k : new ChangeKind[] {ChangeKind.OPEN, ChangeKind.CLOSE, ChangeKind.CORRECT}) {
      if (!changeSymbols.contains(k.wireName())) {
        throw new IllegalStateException(TEMPLATE + ": the enum of '" + CHANGE_FIELD + "' lacks '" + k.wireName() + "'");
      }
    }
    for (Column c : spec.columns()) {
      if (c.name().equals(CHANGE_FIELD)) {
        throw new IllegalArgumentException("column '" + c.name() + "' has the name of the change field of Avro "
            + "version records");
      }
    }

    OutputColumns out = spec.output();
    List<Schema.Field> fields = new ArrayList<>();
    try {
      for (Schema.Field t : template.getFields()) {
        switch (t.name()) {
          case VALID_FROM -> {
            for (int i = 0; i < keys.size(); i++) {
              fields.add(new Schema.Field(keys.get(i).name(), keyCodecs[i].schema(), null, null));
            }
            for (int i = 0; i < attributes.size(); i++) {
              fields.add(new Schema.Field(attributes.get(i).name(), attributeCodecs[i].schema(), null,
                  Schema.Field.NULL_DEFAULT_VALUE));
            }
            fields.add(new Schema.Field(out.validFrom(), validity(0), t.doc(), null));
          }
          case VALID_TO -> {
            fields.add(new Schema.Field(out.validTo(), nullable(validity(0)), t.doc(),
                Schema.Field.NULL_DEFAULT_VALUE));
            List<String> extraFrom = spec.extraValidFromColumns();
            List<String> extraTo = spec.extraValidToColumns();
            for (int i = 0; i < extraFrom.size(); i++) {
              fields.add(new Schema.Field(extraFrom.get(i), validity(i + 1), null, null));
            }
            for (int i = 0; i < extraTo.size(); i++) {
              fields.add(new Schema.Field(extraTo.get(i), nullable(validity(i + 1)), null,
                  Schema.Field.NULL_DEFAULT_VALUE));
            }
          }
          case IS_CURRENT -> fields.add(new Schema.Field(out.isCurrent(), t.schema(), t.doc(), null));
          default -> fields.add(new Schema.Field(t, t.schema()));
        }
      }
      Schema record = Schema.createRecord(recordName(spec.name()), template.getDoc(), template.getNamespace(), false);
      record.setFields(fields);
      this.schema = record;
    } catch (AvroRuntimeException e) {
      throw new IllegalArgumentException("the columns of '" + spec.name() + "' cannot form an Avro version record: "
          + e.getMessage(), e);
    }
  }

  /** The writer (and reader) schema of the record values. */
  public Schema schema() {
    return schema;
  }

  @Override
  public byte[] encodeKey(BusinessKey key, Sequence validFrom) {
    return json.encodeKey(key, validFrom);
  }

  /** Decodes a record key (the JSON identity). */
  public VersionId decodeKey(byte[] bytes) {
    return json.decodeKey(bytes);
  }

  @Override
  public byte[] encodeValue(Version version, ChangeKind kind) {
    if (kind == ChangeKind.RETRACT) {
      throw new IllegalArgumentException("a retraction has a null value, not a row");
    }
    if (version.key().values().size() != keyCodecs.length) {
      throw new IllegalArgumentException("expected " + keyCodecs.length + " key values, got " + version.key());
    }
    if (version.attributes().size() != attributeCodecs.length) {
      throw new IllegalArgumentException("expected " + attributeCodecs.length + " attributes, got "
          + version.attributes());
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
    try {
      for (int i = 0; i < keyCodecs.length; i++) {
        keyCodecs[i].write(out, version.key().values().get(i));
      }
      for (int i = 0; i < attributeCodecs.length; i++) {
        attributeCodecs[i].write(out, version.attributes().get(i));
      }
      Sequence from = version.validFrom();
      Sequence to = version.validTo();
      writeSequencePart(out, from.part(0), 0);
      writeOptionalPart(out, to, 0);
      for (int i = 1; i < sequenceTypes.length; i++) {
        writeSequencePart(out, from.part(i), i);
      }
      for (int i = 1; i < sequenceTypes.length; i++) {
        writeOptionalPart(out, to, i);
      }
      out.writeBoolean(version.isCurrent());
      out.writeEnum(changeSymbols.indexOf(kind.wireName()));
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return bytes.toByteArray();
  }

  /** The version and change kind of a non-null record value. */
  public VersionJson.Row decodeValue(byte[] bytes) {
    if (bytes == null) {
      throw new IllegalArgumentException("a null record value is a retraction; it has no row");
    }
    BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, null);
    try {
      List<Object> key = new ArrayList<>(keyCodecs.length);
      for (ColumnAvro c : keyCodecs) {
        key.add(c.read(in));
      }
      List<Object> attributes = new ArrayList<>(attributeCodecs.length);
      for (ColumnAvro c : attributeCodecs) {
        attributes.add(c.read(in));
      }
      int n = sequenceTypes.length;
      long[] from = new long[n];
      long[] to = new long[n];
      boolean[] toPresent = new boolean[n];
      from[0] = readSequencePart(in, 0);
      toPresent[0] = ColumnAvro.readPresent(in);
      if (toPresent[0]) {
        to[0] = readSequencePart(in, 0);
      }
      for (int i = 1; i < n; i++) {
        from[i] = readSequencePart(in, i);
      }
      for (int i = 1; i < n; i++) {
        toPresent[i] = ColumnAvro.readPresent(in);
        if (toPresent[i]) {
          to[i] = readSequencePart(in, i);
        }
      }
      for (int i = 1; i < n; i++) {
        if (toPresent[i] != toPresent[0]) {
          throw new IllegalArgumentException("the validity end is null in some of its parts only");
        }
      }
      boolean current = in.readBoolean();
      int symbol = in.readEnum();
      if (symbol < 0 || symbol >= changeSymbols.size()) {
        throw new IllegalArgumentException("change index " + symbol + " is not one of the " + changeSymbols.size()
            + " symbols");
      }
      ChangeKind kind = ChangeKind.fromWire(changeSymbols.get(symbol));
      if (kind == ChangeKind.RETRACT) {
        throw new IllegalArgumentException("a record value cannot be a retraction");
      }
      if (!in.isEnd()) {
        throw new IllegalArgumentException("bytes are left after the record");
      }
      Version v = new Version(new BusinessKey(key), Sequence.of(from), toPresent[0] ? Sequence.of(to) : null,
          attributes);
      if (current != v.isCurrent()) {
        throw new IllegalArgumentException("is_current is " + current + " but valid_to is " + v.validTo());
      }
      return new VersionJson.Row(v, kind);
    } catch (IllegalArgumentException e) {
      throw notARecord(e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw notARecord(e.toString(), e); // short input (EOF), a bad length, a date out of range
    }
  }

  @Override
  public VersionChange decodeChange(byte[] key, byte[] value) {
    if (value == null) {
      VersionId id = json.decodeKey(key);
      return new VersionChange.Retraction(id.key(), id.validFrom());
    }
    VersionJson.Row row = decodeValue(value);
    return new VersionChange.Upsert(row.version(), row.kind());
  }

  private IllegalArgumentException notARecord(String why, Exception cause) {
    return new IllegalArgumentException("not an Avro version record of " + schema.getFullName() + ": " + why, cause);
  }

  private void writeSequencePart(Encoder out, long part, int i) throws IOException {
    if (sequenceTypes[i].kind() == ColumnType.Kind.DATE) {
      out.writeInt(Math.toIntExact(part));
    } else {
      out.writeLong(part);
    }
  }

  private void writeOptionalPart(Encoder out, Sequence s, int i) throws IOException {
    if (s == null) {
      out.writeIndex(0);
      out.writeNull();
    } else {
      out.writeIndex(1);
      writeSequencePart(out, s.part(i), i);
    }
  }

  private long readSequencePart(Decoder in, int i) throws IOException {
    return sequenceTypes[i].kind() == ColumnType.Kind.DATE ? in.readInt() : in.readLong();
  }

  private static Schema template() {
    try (InputStream in = VersionAvro.class.getResourceAsStream(TEMPLATE)) {
      if (in == null) {
        throw new IllegalStateException(TEMPLATE + " is not on the class path (it is packaged from schemas/)");
      }
      Schema s = new Schema.Parser().parse(in);
      for (String f : new String[] {VALID_FROM, VALID_TO, IS_CURRENT, CHANGE_FIELD}) {
        if (s.getField(f) == null) {
          throw new IllegalStateException(TEMPLATE + " has no field '" + f + "'");
        }
      }
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + TEMPLATE, e);
    }
  }

  static String recordName(String dimension) {
    String n = dimension.replaceAll("[^A-Za-z0-9_]", "_") + "_version";
    return Character.isDigit(n.charAt(0)) ? "_" + n : n;
  }

  private Schema validity(int part) {
    return ColumnAvro.sequenceSchema(sequenceTypes[part]);
  }

  private static Schema nullable(Schema s) {
    return Schema.createUnion(Schema.create(Schema.Type.NULL), s);
  }
}
