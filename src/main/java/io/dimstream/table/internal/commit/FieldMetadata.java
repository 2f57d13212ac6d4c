package io.dimstream.table.internal.commit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.files.TableLayout;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Carries the field metadata of a table's schema into the schema of its next spec, and records each widened column
 * in the {@code delta.typeChanges} list of its field, as the Delta protocol's type widening asks.
 */
final class FieldMetadata {
  /** The field metadata key that lists a column's type changes, oldest first. */
  static final String TYPE_CHANGES = "delta.typeChanges";

  private FieldMetadata() {}

  /**
   * {@code next} (a schema string without field metadata) with each field's metadata from {@code previous} (same
   * field name) and one {@code {fromType, toType}} appended to the type changes of each column in {@code widened}.
   */
  static String carry(String previous, String next, List<TypeChange> widened) {
    try {
      Map<String, JsonNode> old = new HashMap<>();
      for (JsonNode f : ActionCodec.JSON.readTree(previous).path("fields")) {
        old.put(f.path("name").asText(), f.path("metadata"));
      }
      ObjectNode root = (ObjectNode) ActionCodec.JSON.readTree(next);
      for (JsonNode n : root.path("fields")) {
        ObjectNode f = (ObjectNode) n;
        String name = f.path("name").asText();
        ObjectNode md = old.get(name) instanceof ObjectNode o ? o.deepCopy() : ActionCodec.JSON.createObjectNode();
        for (TypeChange change : widened) {
          if (!change.column().equals(name)) {
            continue;
          }
          ArrayNode changes = md.get(TYPE_CHANGES) instanceof ArrayNode a ? a : md.putArray(TYPE_CHANGES);
          ObjectNode c = changes.addObject();
          c.put("fromType", TableLayout.deltaType(change.from()));
          c.put("toType", TableLayout.deltaType(change.to()));
        }
        f.set("metadata", md);
      }
      return ActionCodec.JSON.writeValueAsString(root);
    } catch (JsonProcessingException | ClassCastException e) {
      throw new IllegalStateException("cannot carry field metadata from the table's schema " + previous, e);
    }
  }
}
