package io.dimstream.enrich;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.SurrogateIds;
import io.dimstream.model.Version;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON form of an enriched record, the same on the output topic and in the offline command's lines: one object
 * with the fact columns, the added attributes (null when the dimension had no version), the found column, the
 * version id and valid_from columns when the spec asks for them, and the revision. Immutable and thread-safe.
 */
public final class EnrichedRows {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final EnrichmentSpec spec;
  private final FactShape shape;
  private final SurrogateIds ids;
  private final ColumnType validFromType;
  private final List<Column> columns;

  public EnrichedRows(EnrichmentSpec spec) {
    this.spec = spec;
    this.columns = spec.outputColumns();
    this.shape = new FactShape(spec);
    this.ids = new SurrogateIds(spec.dimension().keyColumns().stream().map(Column::type).toList());
    this.validFromType = spec.dimension().sequenceColumns().get(0).type();
  }

  /**
   * The record's values, one per {@link EnrichmentSpec#outputColumns()} entry and in that order, each the column
   * type's in-memory value: the fact's values, the attributes (null when the dimension had no version), the found
   * flag, the version id and valid_from when the spec asks for them (null without a version), the revision.
   */
  public List<Object> values(Enriched e) {
    List<Object> out = new ArrayList<>(spec.facts().columns().size() + spec.attributes().size() + 4);
    out.addAll(e.fact().values());
    Version v = e.version();
    for (EnrichmentSpec.Attribute a : spec.attributes()) {
      out.add(v == null ? null : v.attributes().get(a.position()));
    }
    out.add(v != null);
    if (spec.versionIdColumn() != null) {
      out.add(v == null ? null : ids.of(v));
    }
    if (spec.validFromColumn() != null) {
      out.add(v == null ? null : ColumnValues.sequenceValue(v.validFrom().first(), validFromType));
    }
    out.add(e.revision());
    return out;
  }

  /** The record's columns as a JSON object, in {@link EnrichmentSpec#outputColumns()} order. */
  public ObjectNode row(Enriched e) {
    ObjectNode n = NODES.objectNode();
    List<Object> values = values(e);
    for (int i = 0; i < columns.size(); i++) {
      n.set(columns.get(i).name(), ColumnValues.toJson(values.get(i), columns.get(i).type()));
    }
    return n;
  }

  /** The record value: {@link #row} as UTF-8 JSON. */
  public byte[] value(Enriched e) {
    try {
      return JSON.writeValueAsBytes(row(e));
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot render an enriched record", ex);
    }
  }

  /** The record key: the fact key as a compact JSON array. */
  public byte[] key(Enriched e) {
    return shape.factKeyBytes(e.fact());
  }
}
