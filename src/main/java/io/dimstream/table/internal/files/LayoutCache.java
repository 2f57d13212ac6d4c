package io.dimstream.table.internal.files;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.types.Column;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The layout of each stored spec a table has had, built once per distinct {@code dimstream.spec}. */
public final class LayoutCache {
  private final ObjectStore root;
  private final Map<String, TableLayout> layouts = new ConcurrentHashMap<>();

  public LayoutCache(ObjectStore root) {
    this.root = root;
  }

  /**
   * The layout of the spec stored in {@code metadata}.
   *
   * @throws io.dimstream.table.TableException when the table has no dimstream spec, or it cannot be parsed
   */
  public TableLayout of(Metadata metadata) {
    String json = metadata.configuration().get(SpecCodec.PROPERTY);
    if (json == null) {
      throw TableErrors.notADimensionTable(root);
    }
    // keyed by the schema too: another engine may change a column's type (ALTER TABLE) without touching the spec
    return layouts.computeIfAbsent(json + '\n' + metadata.schemaString(), k -> {
      TableLayout layout;
      try {
        layout = new TableLayout(SpecCodec.fromJson(json));
      } catch (Exception e) {
        throw TableErrors.badStoredSpec(root, e);
      }
      checkTypes(layout, metadata.schemaString());
      return layout;
    });
  }

  /**
   * Refuses a schema whose column types differ from the stored spec's: the decoder converts older files to the
   * spec's type, so a column widened by another engine alone would be read narrowed.
   */
  private void checkTypes(TableLayout layout, String schemaString) {
    JsonNode fields;
    try {
      fields = ActionCodec.JSON.readTree(schemaString).path("fields");
    } catch (JsonProcessingException e) {
      return; // an unreadable schema leaves the spec as the only description of the rows, as before
    }
    for (JsonNode f : fields) {
      Column c = layout.dataColumns.stream().filter(d -> d.name().equals(f.path("name").asText())).findFirst()
          .orElse(null);
      JsonNode type = f.path("type");
      if (c != null && type.isTextual() && !type.asText().equals(TableLayout.deltaType(c.type()))) {
        throw TableErrors.schemaDisagreesWithSpec(root, c.name(), type.asText(), c.type());
      }
    }
  }
}
