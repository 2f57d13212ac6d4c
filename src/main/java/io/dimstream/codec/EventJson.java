package io.dimstream.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.Absent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The compact JSON forms of one dimension's business keys, change events, {@link StoredEvent}s and
 * {@link KeyState}s, as the topology keeps them in its state stores and on its repartition topic.
 *
 * <p>Forms (all JSON arrays; the business key is never repeated inside a value, the caller supplies it):
 * <ul>
 *   <li>business key: {@code [k1, k2, ..]} in key-column order, values as {@link ColumnValues#toJson} renders them.
 *       This is the <em>canonical key bytes</em>: equal keys give equal bytes, and no key's bytes are a prefix of
 *       another's (a JSON value is self-delimiting), so they can prefix a store key.</li>
 *   <li>event: {@code [[seq parts..], delete 0|1, [attributes..]]}, or, when some attributes are
 *       {@link Absent#VALUE}, {@code [[seq parts..], 0, [attributes..], [absent positions..]]} with null at each
 *       absent position (absent is not null: the fold keeps the previous value)</li>
 *   <li>version: {@code [[valid_from parts..], [valid_to parts..] | null, [attributes..]]}</li>
 *   <li>stored event: {@code [event, version-open-after | null]}; key state: {@code [[seq parts..], open | null]}</li>
 * </ul>
 * Instances are immutable and thread-safe. Decoding bytes that were not written by an instance for the same spec,
 * or for one of the earlier layouts an instance was given, throws {@link IllegalArgumentException}.
 */
public final class EventJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .build();

  private final List<ColumnType> keyTypes;
  private final List<ColumnType> attributeTypes;
  /** Where the values of a record written under an earlier attribute layout go. */
  private final EarlierLayouts earlier;
  /** What an added column holds in an upsert of an earlier layout: null, or Absent (missing_fields: keep). */
  private final Object addedInUpsert;

  public EventJson(DimensionSpec spec) {
    this(spec, StateLayouts.NONE);
  }

  /**
   * As {@link #EventJson(DimensionSpec)}, also reading events, stored events and key states written under the
   * {@code earlier} layouts (see {@link StateBinary}: each value goes to the column of its name).
   *
   * @throws IllegalArgumentException when {@code earlier} does not describe layouts of {@code spec}'s attributes
   */
  public EventJson(DimensionSpec spec, StateLayouts earlier) {
    this.keyTypes = spec.keyColumns().stream().map(Column::type).toList();
    this.attributeTypes = spec.attributeColumns().stream().map(Column::type).toList();
    this.earlier = new EarlierLayouts(spec, earlier);
    this.addedInUpsert = spec.fields().keepsMissing() ? Absent.VALUE : null;
  }

  /** The canonical key bytes of {@code key}; throws {@link IllegalArgumentException} if it has the wrong arity. */
  public byte[] keyBytes(BusinessKey key) {
    return write(values(key.values(), keyTypes, "key"));
  }

  /** The inverse of {@link #keyBytes}. */
  public BusinessKey key(byte[] bytes) {
    Object single = singleKey(bytes);
    return single != null ? new BusinessKey(List.of(single)) : keyFromTree(bytes);
  }

  /** {@link #key} through a JSON tree, for any key. */
  BusinessKey keyFromTree(byte[] bytes) {
    return new BusinessKey(values((ArrayNode) read(bytes), keyTypes));
  }

  /**
   * The value of a one-column long or string key read straight from its canonical bytes ({@code [42]},
   * {@code ["abc"]}), or null for any other form, which the tree reads: the SCD2 processor reads every record's key
   * back from these bytes, and a JSON tree per record cost more than the rest of the key handling.
   */
  private Object singleKey(byte[] b) {
    int n = b.length;
    if (keyTypes.size() != 1 || n < 3 || b[0] != '[' || b[n - 1] != ']') {
      return null;
    }
    ColumnType.Kind kind = keyTypes.get(0).kind();
    if (kind == ColumnType.Kind.LONG) {
      int i = b[1] == '-' ? 2 : 1;
      int digits = n - 1 - i;
      if (digits < 1 || digits > 18) {
        return null; // 19 digits may overflow: the tree decides
      }
      long v = 0;
      for (; i < n - 1; i++) {
        int d = b[i] - '0';
        if (d < 0 || d > 9) {
          return null;
        }
        v = v * 10 + d;
      }
      return b[1] == '-' ? -v : v;
    }
    if (kind == ColumnType.Kind.STRING && n >= 4 && b[1] == '"' && b[n - 2] == '"') {
      for (int i = 2; i < n - 2; i++) {
        if (b[i] == '\\' || b[i] == '"') {
          return null; // escapes, or not one string
        }
      }
      return new String(b, 2, n - 4, java.nio.charset.StandardCharsets.UTF_8);
    }
    return null;
  }

  /** An event without its key. */
  public byte[] encodeEvent(ChangeEvent event) {
    return write(eventNode(event));
  }

  public ChangeEvent decodeEvent(BusinessKey key, byte[] bytes) {
    return event(key, read(bytes));
  }

  /** A stored event without its key. */
  public byte[] encode(StoredEvent stored) {
    ArrayNode n = NODES.arrayNode(2);
    n.add(eventNode(stored.event()));
    n.add(versionNode(stored.openAfter()));
    return write(n);
  }

  public StoredEvent decodeStoredEvent(BusinessKey key, byte[] bytes) {
    JsonNode n = read(bytes);
    return new StoredEvent(event(key, n.get(0)), version(key, n.get(1)));
  }

  /** A key state without its key. */
  public byte[] encode(KeyState state) {
    ArrayNode n = NODES.arrayNode(2);
    n.add(sequenceNode(state.lastSequence()));
    n.add(versionNode(state.open()));
    return write(n);
  }

  public KeyState decodeKeyState(BusinessKey key, byte[] bytes) {
    JsonNode n = read(bytes);
    return new KeyState(sequence(n.get(0)), version(key, n.get(1)));
  }

  private ArrayNode eventNode(ChangeEvent e) {
    ArrayNode n = NODES.arrayNode(3);
    n.add(sequenceNode(e.sequence()));
    n.add(e.delete() ? 1 : 0);
    // a delete's attributes are ignored by the fold; keep them only when they are complete
    boolean keep = !e.delete() || e.attributes().size() == attributeTypes.size();
    if (!e.delete() && e.partial()) {
      List<Object> present = new ArrayList<>(e.attributes());
      ArrayNode absent = NODES.arrayNode();
      for (int i = 0; i < present.size(); i++) {
        if (present.get(i) == Absent.VALUE) {
          present.set(i, null);
          absent.add(i);
        }
      }
      n.add(values(present, attributeTypes, "attributes"));
      n.add(absent);
      return n;
    }
    n.add(keep ? values(e.attributes(), attributeTypes, "attributes") : NODES.arrayNode());
    return n;
  }

  private ChangeEvent event(BusinessKey key, JsonNode n) {
    boolean delete = n.get(1).asInt() == 1;
    ArrayNode attrs = (ArrayNode) n.get(2);
    List<Object> values = delete && attrs.size() != attributeTypes.size() ? List.of()
        : attributes(attrs, delete ? null : addedInUpsert, "an event");
    JsonNode absent = n.get(3);
    if (absent != null) {
      int[] to = attrs.size() == attributeTypes.size() ? null : earlier.positions(attrs.size(), "an event");
      for (JsonNode i : absent) {
        int at = i.asInt(-1);
        if (at < 0 || at >= attrs.size()) {
          throw new IllegalArgumentException("absent position " + i + " out of range in " + n);
        }
        values.set(to == null ? at : to[at], Absent.VALUE);
      }
    }
    return new ChangeEvent(key, sequence(n.get(0)), delete, values);
  }

  /** A version's form, {@code [[valid_from parts..], [valid_to parts..] | null, [attributes..]]}; null gives JSON null. */
  public JsonNode versionNode(Version v) {
    if (v == null) {
      return NODES.nullNode();
    }
    ArrayNode n = NODES.arrayNode(3);
    n.add(sequenceNode(v.validFrom()));
    n.add(v.validTo() == null ? NODES.nullNode() : sequenceNode(v.validTo()));
    n.add(values(v.attributes(), attributeTypes, "attributes"));
    return n;
  }

  /** The version {@link #versionNode} wrote, of {@code key}; null for JSON null. */
  public Version version(BusinessKey key, JsonNode n) {
    if (n == null || n.isNull()) {
      return null;
    }
    JsonNode to = n.get(1);
    return new Version(key, sequence(n.get(0)), to.isNull() ? null : sequence(to),
        attributes((ArrayNode) n.get(2), null, "a version"));
  }

  /**
   * The attributes of a stored form: in the spec's layout, or in an earlier one (told by their count) put into the
   * columns of their names, with {@code added} in the columns added since.
   */
  private List<Object> attributes(ArrayNode n, Object added, String what) {
    if (n.size() == attributeTypes.size()) {
      return values(n, attributeTypes);
    }
    int[] to = earlier.positions(n.size(), what);
    List<Object> out = new ArrayList<>(java.util.Collections.nCopies(attributeTypes.size(), added));
    for (int i = 0; i < to.length; i++) {
      out.set(to[i], ColumnValues.fromJson(n.get(i), attributeTypes.get(to[i])));
    }
    return out;
  }

  /** A sequence's form: its parts, {@code [p1, p2, ..]}. */
  public static ArrayNode sequenceNode(Sequence s) {
    ArrayNode n = NODES.arrayNode(s.size());
    for (int i = 0; i < s.size(); i++) {
      n.add(s.part(i));
    }
    return n;
  }

  /** The sequence {@link #sequenceNode} wrote. */
  public static Sequence sequence(JsonNode n) {
    long[] parts = new long[n.size()];
    for (int i = 0; i < parts.length; i++) {
      parts[i] = n.get(i).asLong();
    }
    return Sequence.of(parts);
  }

  private static ArrayNode values(List<Object> values, List<ColumnType> types, String what) {
    if (values.size() != types.size()) {
      throw new IllegalArgumentException("expected " + types.size() + " " + what + " values, got " + values.size());
    }
    ArrayNode n = NODES.arrayNode(values.size());
    for (int i = 0; i < values.size(); i++) {
      n.add(ColumnValues.toJson(values.get(i), types.get(i)));
    }
    return n;
  }

  private static List<Object> values(ArrayNode n, List<ColumnType> types) {
    if (n.size() != types.size()) {
      throw new IllegalArgumentException("expected " + types.size() + " values, got " + n.size() + ": " + n);
    }
    List<Object> out = new ArrayList<>(types.size());
    for (int i = 0; i < types.size(); i++) {
      out.add(ColumnValues.fromJson(n.get(i), types.get(i)));
    }
    return out;
  }

  private static byte[] write(JsonNode n) {
    try {
      return MAPPER.writeValueAsBytes(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render " + n, e);
    }
  }

  private static JsonNode read(byte[] bytes) {
    try {
      JsonNode n = MAPPER.readTree(bytes);
      if (n == null || !n.isArray()) {
        throw new IllegalArgumentException("expected a JSON array, got " + n);
      }
      return n;
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read stored state: " + e.getMessage(), e);
    }
  }
}
