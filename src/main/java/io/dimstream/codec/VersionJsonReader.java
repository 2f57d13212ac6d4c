package io.dimstream.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes a versions-topic record value token by token, into the same values as {@link VersionJson}'s tree path
 * (each scalar becomes the node {@code readTree} would make and goes through {@link ColumnValues#fromJson}) without
 * a tree and its map per record. Answers null for anything off the common shape (a fractional number, a nested
 * value, a missing or bad field): the tree path then decodes it or words the error.
 */
final class VersionJsonReader {
  private static final JsonFactory FACTORY = new JsonFactory();

  private final List<Column> keyColumns;
  private final List<Column> attributeColumns;
  private final List<Column> sequenceColumns;
  /** Field name to slot: keys, attributes, valid_from parts, valid_to parts, then the change field. */
  private final Map<String, Integer> slots = new HashMap<>();
  /** The column type of each key and attribute slot (null for the others), which decides how a float is read. */
  private final ColumnType.Kind[] slotKinds;
  private final int fromSlot;
  private final int toSlot;
  private final int changeSlot;

  private VersionJsonReader(List<Column> keys, List<Column> attributes, List<Column> sequence, List<String> from,
      List<String> to) {
    this.keyColumns = keys;
    this.attributeColumns = attributes;
    this.sequenceColumns = sequence;
    keys.forEach(c -> slots.put(c.name(), slots.size()));
    attributes.forEach(c -> slots.put(c.name(), slots.size()));
    fromSlot = slots.size();
    from.forEach(n -> slots.put(n, slots.size()));
    toSlot = slots.size();
    to.forEach(n -> slots.put(n, slots.size()));
    changeSlot = slots.size();
    slots.put(VersionJson.CHANGE_FIELD, changeSlot);
    slotKinds = new ColumnType.Kind[changeSlot + 1];
    for (int i = 0; i < keys.size() + attributes.size() && i < slotKinds.length; i++) {
      slotKinds[i] = (i < keys.size() ? keys.get(i) : attributes.get(i - keys.size())).type().kind();
    }
  }

  /** A reader, or null when two fields share a name (then only the tree path decodes them as it always has). */
  static VersionJsonReader of(List<Column> keys, List<Column> attributes, List<Column> sequence, List<String> from,
      List<String> to) {
    VersionJsonReader r = new VersionJsonReader(keys, attributes, sequence, from, to);
    int fields = keys.size() + attributes.size() + from.size() + to.size() + 1;
    return r.slots.size() == fields ? r : null;
  }

  /** The decoded value, or null when the tree path must decode it. */
  VersionJson.Row read(byte[] bytes) {
    JsonNode[] values = new JsonNode[changeSlot + 1];
    try (JsonParser p = FACTORY.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        Integer slot = slots.get(p.currentName());
        JsonNode node = scalar(p, p.nextToken(), slot == null ? null : slotKinds[slot]);
        if (node == null) {
          return null;
        }
        if (slot != null) {
          values[slot] = node; // a repeated field: the last wins, as in the tree
        }
      }
      if (t != JsonToken.END_OBJECT) {
        return null;
      }
      return row(values);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The node {@code readTree} makes of a scalar token (null for other tokens), except that a fractional number of a
   * double column is read as a double: the tree reads fractions as decimals (for decimal columns' precision), and a
   * decimal has no negative zero, so {@code -0.0} came back as {@code 0.0}.
   */
  private static JsonNode scalar(JsonParser p, JsonToken t, ColumnType.Kind kind) throws IOException {
    if (t == null) {
      return null;
    }
    return switch (t) {
      case VALUE_STRING -> TextNode.valueOf(p.getText());
      case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
        case INT -> IntNode.valueOf(p.getIntValue());
        case LONG -> LongNode.valueOf(p.getLongValue());
        default -> BigIntegerNode.valueOf(p.getBigIntegerValue());
      };
      case VALUE_NUMBER_FLOAT -> kind == ColumnType.Kind.DOUBLE ? DoubleNode.valueOf(p.getDoubleValue())
          : DecimalNode.valueOf(p.getDecimalValue());
      case VALUE_TRUE -> BooleanNode.TRUE;
      case VALUE_FALSE -> BooleanNode.FALSE;
      case VALUE_NULL -> NullNode.getInstance();
      default -> null;
    };
  }

  private VersionJson.Row row(JsonNode[] values) {
    List<Object> key = new ArrayList<>(keyColumns.size());
    for (int i = 0; i < keyColumns.size(); i++) {
      Object v = ColumnValues.fromJson(values[i], keyColumns.get(i).type());
      if (v == null) {
        return null;
      }
      key.add(v);
    }
    List<Object> attributes = new ArrayList<>(attributeColumns.size());
    for (int i = 0; i < attributeColumns.size(); i++) {
      attributes.add(ColumnValues.fromJson(values[keyColumns.size() + i], attributeColumns.get(i).type()));
    }
    Sequence from = sequence(values, fromSlot);
    if (from == null) {
      return null;
    }
    Sequence to = values[toSlot] == null || values[toSlot].isNull() ? null : sequence(values, toSlot);
    if (to == null && values[toSlot] != null && !values[toSlot].isNull()) {
      return null;
    }
    JsonNode change = values[changeSlot];
    if (change == null || !change.isTextual()) {
      return null;
    }
    return new VersionJson.Row(new Version(new BusinessKey(key), from, to, attributes),
        ChangeKind.fromWire(change.asText()));
  }

  /** The sequence whose parts start at {@code slot}; null when a part is missing. */
  private Sequence sequence(JsonNode[] values, int slot) {
    long[] parts = new long[sequenceColumns.size()];
    for (int i = 0; i < parts.length; i++) {
      Column c = sequenceColumns.get(i);
      Object v = ColumnValues.fromJson(values[slot + i], c.type());
      if (v == null) {
        return null;
      }
      parts[i] = ColumnValues.sequenceLong(v, c.type());
    }
    return Sequence.of(parts);
  }
}
