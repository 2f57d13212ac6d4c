package io.dimstream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.KernelReader;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Rows Spark answered with, as the versions of a dimension (the form the reference fold gives). */
public final class SparkRows {
  private SparkRows() {}

  /** {@code rows} (each a column-to-value object from {@link SparkProcess#sql}) as versions, in version order. */
  public static List<Version> versions(List<JsonNode> rows, DimensionSpec spec) {
    Map<String, ColumnType> types = new HashMap<>();
    spec.keyColumns().forEach(c -> types.put(c.name(), c.type()));
    spec.attributeColumns().forEach(c -> types.put(c.name(), c.type()));
    List<Column> seq = spec.sequenceColumns();
    for (int i = 0; i < seq.size(); i++) {
      ColumnType t = TableLayout.sequenceTableType(seq.get(i).type());
      types.put(i == 0 ? spec.output().validFrom() : spec.extraValidFromColumns().get(i - 1), t);
      types.put(i == 0 ? spec.output().validTo() : spec.extraValidToColumns().get(i - 1), t);
    }
    List<Map<String, Object>> maps = new ArrayList<>();
    for (JsonNode r : rows) {
      Map<String, Object> m = new HashMap<>();
      r.fields().forEachRemaining(e -> m.put(e.getKey(), value(e.getValue(), types.get(e.getKey()))));
      maps.add(m);
    }
    List<Version> out = new ArrayList<>(KernelReader.versions(maps, spec));
    out.sort(BusinessKeys.VERSION_ORDER);
    return out;
  }

  private static Object value(JsonNode v, ColumnType type) {
    if (v.isNull()) {
      return null;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (type == null) {
      return v.isTextual() ? v.asText() : v.toString();
    }
    return switch (type.kind()) {
      case LONG -> v.longValue();
      case INT -> v.intValue();
      case DOUBLE -> v.doubleValue();
      case DECIMAL -> v.decimalValue();
      case BOOLEAN -> v.booleanValue();
      case STRING -> v.asText();
      case DATE -> LocalDate.parse(v.asText());
      case TIMESTAMP -> Instant.parse(v.asText());
    };
  }
}
