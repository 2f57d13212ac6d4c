package io.dimstream.change;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.dimstream.types.Column;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a record value that is one flat JSON object (string, whole-number, boolean and null values, no repeated
 * field) straight into one node per spec column, without building the object's tree: from its bytes
 * ({@link FlatJsonBytes}) when it is plain, else from Jackson's token stream. Anything else gives null, and the caller parses the tree, which accepts or rejects it exactly as before. Thread-safe.
 */
final class FlatJsonObject {
  /** The nodes of one object: {@code byColumn[i]} for spec column i (null when absent), and the other field names. */
  record Fields(JsonNode[] byColumn, List<String> undeclared) {}

  private final Map<String, Integer> columnOf = new HashMap<>();
  private final int columns;
  private final FlatJsonBytes bytes;

  FlatJsonObject(Column[] columns) {
    this.columns = columns.length;
    this.bytes = new FlatJsonBytes(columns);
    for (int i = 0; i < columns.length; i++) {
      columnOf.put(columns[i].name(), i);
    }
  }

  /** The object's fields, or null when {@code value} is not a flat object this reader takes (or not JSON at all). */
  Fields read(byte[] value) {
    // most records are plain: read from the bytes; the token stream takes escapes, decimals and big numbers
    Fields plain = bytes.read(value);
    return plain != null ? plain : readTokens(value);
  }

  /** As {@link #read}, from Jackson's token stream. */
  Fields readTokens(byte[] value) {
    try (JsonParser p = JsonRecords.READER.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      JsonNode[] byColumn = new JsonNode[columns];
      List<String> undeclared = null;
      for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
        if (t != JsonToken.FIELD_NAME) {
          return null;
        }
        String name = p.currentName();
        JsonNode node = scalar(p, p.nextToken());
        if (node == null) {
          return null;
        }
        Integer column = columnOf.get(name);
        if (column != null) {
          if (byColumn[column] != null) {
            return null; // a repeated field: the tree decides which value counts
          }
          byColumn[column] = node;
        } else {
          if (undeclared == null) {
            undeclared = new ArrayList<>(2);
          } else if (undeclared.contains(name)) {
            return null;
          }
          undeclared.add(name);
        }
      }
      // the tree parse refuses trailing tokens with its own message
      return p.nextToken() == null ? new Fields(byColumn, undeclared == null ? List.of() : undeclared) : null;
    } catch (IOException | RuntimeException e) {
      return null; // malformed: the tree parse reports where and why
    }
  }

  /** The node Jackson's tree would hold for the token, or null for a value this reader leaves to the tree. */
  private static JsonNode scalar(JsonParser p, JsonToken t) throws IOException {
    if (t == null) {
      return null;
    }
    return switch (t) {
      case VALUE_STRING -> TextNode.valueOf(p.getText());
      case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
        case INT -> IntNode.valueOf(p.getIntValue());
        case LONG -> LongNode.valueOf(p.getLongValue());
        default -> null; // big integers: the tree's own node
      };
      case VALUE_TRUE -> BooleanNode.TRUE;
      case VALUE_FALSE -> BooleanNode.FALSE;
      case VALUE_NULL -> NullNode.getInstance();
      default -> null; // decimals (exact BigDecimal as the tree reads them), nested objects and arrays
    };
  }
}
