package io.dimstream.table.internal.files;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecBuilder;
import io.dimstream.spec.OutputColumns;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.util.ArrayList;
import java.util.List;

/**
 * The table-relevant part of a {@link DimensionSpec} as the JSON stored in {@code metaData.configuration} under
 * {@code dimstream.spec}: name, key/sequence/attribute columns with types, tracked columns, output names.
 */
public final class SpecCodec {
  public static final String PROPERTY = "dimstream.spec";
  private static final String NAME = "name";
  private static final String COLUMNS = "columns";
  private static final String KEY = "key";
  private static final String SEQUENCE = "sequence";
  private static final String TRACKED = "tracked";
  private static final String OUTPUT = "output";
  private static final String HISTORY = "history";
  private static final String SOFT_DELETE = "softDelete";
  private static final String HORIZON = "latenessHorizon";

  private SpecCodec() {}

  public static String toJson(DimensionSpec spec) {
    ObjectNode root = ActionCodec.JSON.createObjectNode();
    root.put(NAME, spec.name());
    ArrayNode cols = root.putArray(COLUMNS);
    for (Column c : tableColumns(spec)) {
      ObjectNode n = cols.addObject();
      n.put("name", c.name());
      n.put("type", c.type().toString());
    }
    spec.key().forEach(root.putArray(KEY)::add);
    spec.sequence().forEach(root.putArray(SEQUENCE)::add);
    ArrayNode tracked = root.putArray(TRACKED);
    spec.attributeColumns().stream().map(Column::name).filter(spec::isTracked).forEach(tracked::add);
    ObjectNode out = root.putObject(OUTPUT);
    out.put("validFrom", spec.output().validFrom());
    out.put("validTo", spec.output().validTo());
    out.put("isCurrent", spec.output().isCurrent());
    if (spec.output().hasVersionId()) {
      out.put("versionId", spec.output().versionId());
    }
    root.put(HORIZON, spec.latenessHorizon());
    if (spec.history().isScd1()) { // written only for scd1, so the stored spec of an scd2 table is as before
      root.put(HISTORY, spec.history().kind().specName());
      root.put(SOFT_DELETE, spec.history().softDelete());
    }
    try {
      return ActionCodec.JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Throws {@link IllegalArgumentException} or a {@code SpecException} when the JSON does not describe a valid spec. */
  public static DimensionSpec fromJson(String json) throws JsonProcessingException {
    JsonNode root = ActionCodec.JSON.readTree(json);
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    DimensionSpecBuilder b = DimensionSpec.builder(root.path(NAME).asText(null));
    for (JsonNode c : root.path(COLUMNS)) {
      b.column(c.path("name").asText(), ColumnType.parse(c.path("type").asText()));
    }
    b.key(strings(root.path(KEY)));
    b.sequence(strings(root.path(SEQUENCE)));
    b.track(strings(root.path(TRACKED)));
    JsonNode out = root.path(OUTPUT);
    b.output(new OutputColumns(out.path("validFrom").asText("valid_from"), out.path("validTo").asText("valid_to"),
        out.path("isCurrent").asText("is_current"), out.path("versionId").asText(null)));
    if (root.hasNonNull(HORIZON)) {
      b.latenessHorizon(root.get(HORIZON).asLong());
    }
    if ("scd1".equals(root.path(HISTORY).asText())) {
      b.history(new io.dimstream.spec.HistoryMode(io.dimstream.spec.HistoryMode.Kind.SCD1,
          root.path(SOFT_DELETE).asBoolean(false)));
    }
    return b.build();
  }

  /** Key, sequence and attribute columns in declaration order: every declared column but the delete rule's. */
  public static List<Column> tableColumns(DimensionSpec spec) {
    String deleteColumn = spec.deleteRule().column();
    return spec.columns().stream().filter(c -> !c.name().equals(deleteColumn)).toList();
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
