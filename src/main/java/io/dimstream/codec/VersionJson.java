package io.dimstream.codec;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.SurrogateIds;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputColumns;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON record format of a dimension's versions topic, and the JSON line {@code dimstream replay} prints.
 *
 * <p>Record <b>key</b>: a JSON object of the key columns, then {@code valid_from} and, for a composite sequence,
 * one {@code valid_from_<column>} per further sequence column (see {@link DimensionSpec#extraValidFromColumns()}):
 * {@code {"customer_id":42,"valid_from":"2024-01-01T06:00:00Z"}}. It is the version's identity.
 *
 * <p>Record <b>value</b>: a JSON object of the key columns, the attributes (in
 * {@link DimensionSpec#attributeColumns()} order), {@code valid_from}, {@code valid_to} (null while open), the extra
 * {@code valid_from_<c>} columns, then the extra {@code valid_to_<c>} columns, {@code is_current}, and
 * {@code "_change"}: {@code open}, {@code close} or {@code correct}. A retraction has a null value (and no
 * decodable row). The validity interval is half-open: {@code [valid_from, valid_to)}.
 *
 * <p>Values are rendered by {@link ColumnValues#toJson} (timestamps as ISO-8601 UTC strings); sequence columns are
 * converted with {@link ColumnValues#sequenceValue}. Output column names come from the spec. Instances are
 * immutable and thread-safe; decoding throws {@link IllegalArgumentException} on bytes that are not such a record.
 */
public final class VersionJson implements VersionRecordCodec {
  /** The value field that says why the record was emitted. */
  public static final String CHANGE_FIELD = "_change";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .build();

  /** A decoded record value: the version and why it was emitted (never {@link ChangeKind#RETRACT}). */
  public record Row(Version version, ChangeKind kind) {}

  private final List<Column> keyColumns;
  private final List<Column> attributeColumns;
  private final List<Column> sequenceColumns;
  private final OutputColumns out;
  private final List<String> validFromColumns;
  private final List<String> validToColumns;
  /** Null when the spec has no {@code output.version_id}. */
  private final SurrogateIds versionIds;
  /** The token-by-token decoder of record values; null when field names collide (the tree path alone decodes). */
  private final VersionJsonReader reader;
  // every field name quoted and encoded once, not per record
  private final SerializedString[] keyNames;
  private final SerializedString[] attributeNames;
  private final SerializedString[] validFromNames;
  private final SerializedString[] validToNames;
  private final SerializedString isCurrentName;
  private final SerializedString versionIdName;
  private static final SerializedString CHANGE_NAME = new SerializedString(CHANGE_FIELD);
  private static final SerializedString[] CHANGE_VALUES = java.util.Arrays.stream(ChangeKind.values())
      .map(k -> new SerializedString(k.wireName())).toArray(SerializedString[]::new);

  public VersionJson(DimensionSpec spec) {
    this.keyColumns = spec.keyColumns();
    this.attributeColumns = spec.attributeColumns();
    this.sequenceColumns = spec.sequenceColumns();
    this.out = spec.output();
    List<String> from = new ArrayList<>();
    from.add(out.validFrom());
    from.addAll(spec.extraValidFromColumns());
    List<String> to = new ArrayList<>();
    to.add(out.validTo());
    to.addAll(spec.extraValidToColumns());
    this.validFromColumns = List.copyOf(from);
    this.validToColumns = List.copyOf(to);
    this.versionIds = out.hasVersionId() ? new SurrogateIds(keyColumns.stream().map(Column::type).toList()) : null;
    this.reader = VersionJsonReader.of(keyColumns, attributeColumns, sequenceColumns, validFromColumns,
        validToColumns);
    this.keyNames = names(keyColumns.stream().map(Column::name).toList());
    this.attributeNames = names(attributeColumns.stream().map(Column::name).toList());
    this.validFromNames = names(validFromColumns);
    this.validToNames = names(validToColumns);
    this.isCurrentName = new SerializedString(out.isCurrent());
    this.versionIdName = out.hasVersionId() ? new SerializedString(out.versionId()) : null;
  }

  private static SerializedString[] names(List<String> names) {
    return names.stream().map(SerializedString::new).toArray(SerializedString[]::new);
  }

  /**
   * An encoder for one thread at a time (a stream task) that writes every record through one generator and buffer
   * instead of creating them per record; the same bytes as {@link #encodeKey} and {@link #encodeValue}.
   */
  @Override
  public VersionRecordCodec.RecordEncoder encoder() {
    return new ReusingEncoder();
  }

  /** Keeps one generator over one buffer; a record that fails half-written drops both. Not thread-safe. */
  private final class ReusingEncoder implements VersionRecordCodec.RecordEncoder {
    private final ByteArrayBuilder buf = new ByteArrayBuilder(512);
    private JsonGenerator g;

    @Override
    public byte[] encodeKey(BusinessKey key, Sequence validFrom) {
      checkKey(key);
      try {
        writeKey(generator(), key, validFrom);
        return take();
      } catch (IOException | RuntimeException e) {
        g = null; // the generator is in the middle of a record
        buf.reset();
        throw e instanceof RuntimeException r ? r
            : new IllegalStateException("cannot render the key of " + key + " at " + validFrom, e);
      }
    }

    @Override
    public byte[] encodeValue(Version version, ChangeKind kind) {
      if (kind == ChangeKind.RETRACT) {
        throw new IllegalArgumentException("a retraction has a null value, not a row");
      }
      checkKey(version.key());
      try {
        writeRow(generator(), version, kind);
        return take();
      } catch (IOException | RuntimeException e) {
        g = null;
        buf.reset();
        throw e instanceof RuntimeException r ? r : new IllegalStateException("cannot render the version " + version, e);
      }
    }

    private JsonGenerator generator() throws IOException {
      if (g == null) {
        buf.reset();
        g = MAPPER.createGenerator(buf);
        g.setRootValueSeparator(null); // records are separate documents: nothing between them
      }
      return g;
    }

    private byte[] take() throws IOException {
      g.flush();
      byte[] bytes = buf.toByteArray();
      buf.reset();
      return bytes;
    }
  }

  /** The record key of the version {@code (key, validFrom)}. */
  @Override
  public byte[] encodeKey(BusinessKey key, Sequence validFrom) {
    checkKey(key);
    ByteArrayBuilder buf = new ByteArrayBuilder(64);
    try (JsonGenerator g = MAPPER.createGenerator(buf)) {
      writeKey(g, key, validFrom);
    } catch (IOException e) {
      throw new IllegalStateException("cannot render the key of " + key + " at " + validFrom, e);
    }
    return buf.toByteArray();
  }

  /** The identity a record key names. */
  public VersionId decodeKey(byte[] bytes) {
    JsonNode n = read(bytes);
    return new VersionId(key(n), sequence(n, validFromColumns, true));
  }

  /**
   * The record value of an upserted version.
   *
   * @throws IllegalArgumentException when {@code kind} is {@link ChangeKind#RETRACT} (a retraction's value is null)
   */
  @Override
  public byte[] encodeValue(Version version, ChangeKind kind) {
    if (kind == ChangeKind.RETRACT) {
      throw new IllegalArgumentException("a retraction has a null value, not a row");
    }
    // Streamed field by field in the order of row(), with the same generator settings: the same bytes as writing
    // row() plus the change field, without a tree per record (10 % of the stream thread when it built one).
    checkKey(version.key());
    ByteArrayBuilder buf = new ByteArrayBuilder(256);
    try (JsonGenerator g = MAPPER.createGenerator(buf)) {
      writeRow(g, version, kind);
    } catch (IOException e) {
      throw new IllegalStateException("cannot render the version " + version, e);
    }
    return buf.toByteArray();
  }

  /** One version record value: the fields in the order of {@link #row}, then the change field. */
  private void writeRow(JsonGenerator g, Version version, ChangeKind kind) throws IOException {
    g.writeStartObject();
    writeKey(g, version.key());
    List<Object> attrs = version.attributes();
    for (int i = 0; i < attributeColumns.size(); i++) {
      Column c = attributeColumns.get(i);
      g.writeFieldName(attributeNames[i]);
      writeValue(g, attrs.get(i), c.type());
    }
    Sequence to = version.validTo();
    g.writeFieldName(validFromNames[0]);
    writePart(g, version.validFrom(), 0);
    g.writeFieldName(validToNames[0]);
    writePartOrNull(g, to, 0);
    for (int i = 1; i < validFromColumns.size(); i++) {
      g.writeFieldName(validFromNames[i]);
      writePart(g, version.validFrom(), i);
    }
    for (int i = 1; i < validToColumns.size(); i++) {
      g.writeFieldName(validToNames[i]);
      writePartOrNull(g, to, i);
    }
    g.writeFieldName(isCurrentName);
    g.writeBoolean(version.isCurrent());
    if (versionIds != null) {
      g.writeFieldName(versionIdName);
      g.writeNumber(versionIds.of(version));
    }
    g.writeFieldName(CHANGE_NAME);
    g.writeString(CHANGE_VALUES[kind.ordinal()]);
    g.writeEndObject();
  }

  /** One version record key: the key columns, then the {@code valid_from} columns. */
  private void writeKey(JsonGenerator g, BusinessKey key, Sequence validFrom) throws IOException {
    g.writeStartObject();
    writeKey(g, key);
    for (int i = 0; i < validFromNames.length; i++) {
      g.writeFieldName(validFromNames[i]);
      writePart(g, validFrom, i);
    }
    g.writeEndObject();
  }

  /** The version and change kind of a non-null record value. */
  public Row decodeValue(byte[] bytes) {
    // the compactor decodes every record: without a tree per record when it has the usual shape
    Row fast = reader == null || bytes == null ? null : reader.read(bytes);
    return fast != null ? fast : decodeValueTree(bytes);
  }

  /** {@link #decodeValue} through a JSON tree: any shape, and the errors. */
  Row decodeValueTree(byte[] bytes) {
    JsonNode n = read(bytes);
    BusinessKey key = key(n);
    List<Object> attributes = new ArrayList<>(attributeColumns.size());
    for (Column c : attributeColumns) {
      attributes.add(ColumnValues.fromJson(n.get(c.name()), c.type()));
    }
    Version v = new Version(key, sequence(n, validFromColumns, true), sequence(n, validToColumns, false), attributes);
    JsonNode change = n.get(CHANGE_FIELD);
    if (change == null || !change.isTextual()) {
      throw new IllegalArgumentException("a version record needs a '" + CHANGE_FIELD + "' field: " + n);
    }
    return new Row(v, ChangeKind.fromWire(change.asText()));
  }

  /**
   * The version change a versions-topic record stands for: a {@link VersionChange.Retraction} when {@code value} is
   * null, else a {@link VersionChange.Upsert}. Fits {@code io.dimstream.compactor.VersionRecordDecoder}.
   */
  @Override
  public VersionChange decodeChange(byte[] key, byte[] value) {
    if (value == null) {
      VersionId id = decodeKey(key);
      return new VersionChange.Retraction(id.key(), id.validFrom());
    }
    Row row = decodeValue(value);
    return new VersionChange.Upsert(row.version(), row.kind());
  }

  /**
   * The version as a row: key columns, attributes, validity columns, {@code is_current}, then the version id when
   * the spec asks for one (no change field).
   */
  public ObjectNode row(Version version) {
    ObjectNode n = NODES.objectNode();
    putKey(n, version.key());
    List<Object> attrs = version.attributes();
    for (int i = 0; i < attributeColumns.size(); i++) {
      Column c = attributeColumns.get(i);
      n.set(c.name(), ColumnValues.toJson(attrs.get(i), c.type()));
    }
    n.set(out.validFrom(), part(version.validFrom(), 0));
    n.set(out.validTo(), version.validTo() == null ? NODES.nullNode() : part(version.validTo(), 0));
    for (int i = 1; i < validFromColumns.size(); i++) {
      n.set(validFromColumns.get(i), part(version.validFrom(), i));
    }
    for (int i = 1; i < validToColumns.size(); i++) {
      n.set(validToColumns.get(i), version.validTo() == null ? NODES.nullNode() : part(version.validTo(), i));
    }
    n.put(out.isCurrent(), version.isCurrent());
    if (versionIds != null) {
      n.put(out.versionId(), versionIds.of(version));
    }
    return n;
  }

  /** The line {@code dimstream replay} prints for a version: {@link #row} as compact JSON. */
  public String replayLine(Version version) {
    return row(version).toString();
  }

  private void checkKey(BusinessKey key) {
    if (key.values().size() != keyColumns.size()) {
      throw new IllegalArgumentException("expected " + keyColumns.size() + " key values, got " + key);
    }
  }

  private void writeKey(JsonGenerator g, BusinessKey key) throws IOException {
    for (int i = 0; i < keyColumns.size(); i++) {
      g.writeFieldName(keyNames[i]);
      writeValue(g, key.values().get(i), keyColumns.get(i).type());
    }
  }

  private void writePart(JsonGenerator g, Sequence s, int i) throws IOException {
    Column c = sequenceColumns.get(i);
    writeValue(g, ColumnValues.sequenceValue(s.part(i), c.type()), c.type());
  }

  private void writePartOrNull(JsonGenerator g, Sequence s, int i) throws IOException {
    if (s == null) {
      g.writeNull();
    } else {
      writePart(g, s, i);
    }
  }

  /** What {@link ColumnValues#toJson} renders, written straight to the generator (the same tokens, so the same bytes). */
  private static void writeValue(JsonGenerator g, Object value, ColumnType type) throws IOException {
    if (value == null) {
      g.writeNull();
      return;
    }
    switch (type.kind()) {
      case LONG -> g.writeNumber((Long) value);
      case INT -> g.writeNumber((Integer) value);
      case DOUBLE -> g.writeNumber((Double) value);
      case DECIMAL -> g.writeNumber((BigDecimal) value);
      case BOOLEAN -> g.writeBoolean((Boolean) value);
      case STRING -> g.writeString((String) value);
      case DATE -> g.writeString(value.toString());
      case TIMESTAMP -> g.writeString(ColumnValues.formatTimestamp((Instant) value));
      default -> throw new IllegalArgumentException("no JSON form for the column type " + type);
    }
  }

  private void putKey(ObjectNode n, BusinessKey key) {
    checkKey(key);
    for (int i = 0; i < keyColumns.size(); i++) {
      Column c = keyColumns.get(i);
      n.set(c.name(), ColumnValues.toJson(key.values().get(i), c.type()));
    }
  }

  private JsonNode part(Sequence s, int i) {
    Column c = sequenceColumns.get(i);
    return ColumnValues.toJson(ColumnValues.sequenceValue(s.part(i), c.type()), c.type());
  }

  private BusinessKey key(JsonNode n) {
    List<Object> values = new ArrayList<>(keyColumns.size());
    for (Column c : keyColumns) {
      Object v = ColumnValues.fromJson(n.get(c.name()), c.type());
      if (v == null) {
        throw new IllegalArgumentException("a version record needs the key column '" + c.name() + "': " + n);
      }
      values.add(v);
    }
    return new BusinessKey(values);
  }

  private Sequence sequence(JsonNode n, List<String> names, boolean required) {
    long[] parts = new long[names.size()];
    for (int i = 0; i < parts.length; i++) {
      Column c = sequenceColumns.get(i);
      Object v = ColumnValues.fromJson(n.get(names.get(i)), c.type());
      if (v == null) {
        if (!required && i == 0) {
          return null;
        }
        throw new IllegalArgumentException("a version record needs the column '" + names.get(i) + "': " + n);
      }
      parts[i] = ColumnValues.sequenceLong(v, c.type());
    }
    return Sequence.of(parts);
  }

  private static JsonNode read(byte[] bytes) {
    if (bytes == null) {
      throw new IllegalArgumentException("a null record value is a retraction; it has no row");
    }
    try {
      JsonNode n = MAPPER.readTree(bytes);
      if (n == null || !n.isObject()) {
        throw new IllegalArgumentException("expected a JSON object, got " + n);
      }
      return n;
    } catch (IOException e) {
      throw new IllegalArgumentException("not a version record: " + e.getMessage(), e);
    }
  }
}
