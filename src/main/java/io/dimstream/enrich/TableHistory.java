package io.dimstream.enrich;

import io.dimstream.model.Version;
import io.dimstream.spec.SpecException;
import io.dimstream.table.DeltaTable;
import io.dimstream.types.Column;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Every version of a dimension's Delta table, with its attributes in the order of the enrichment's dimension spec. */
public final class TableHistory {
  private TableHistory() {}

  /**
   * The latest snapshot's versions, current and closed.
   *
   * @throws SpecException when the table holds another dimension, or lacks an attribute the spec declares
   */
  public static List<Version> versions(DeltaTable table, EnrichmentSpec spec) {
    List<String> tableAttributes = table.spec().attributeColumns().stream().map(Column::name).toList();
    List<Column> wanted = spec.dimension().attributeColumns();
    int[] from = new int[wanted.size()];
    for (int i = 0; i < from.length; i++) {
      from[i] = tableAttributes.indexOf(wanted.get(i).name());
      if (from[i] < 0) {
        throw new SpecException(table.path() + ": the table has no attribute '" + wanted.get(i).name() + "' of the "
            + "dimension '" + spec.dimension().name() + "' (its attributes: " + tableAttributes + "). Fix: give the "
            + "table of the dimension " + spec.source() + " joins with (--table)");
      }
    }
    if (!table.spec().key().equals(spec.dimension().key())) {
      throw new SpecException(table.path() + ": the table is keyed by " + table.spec().key() + ", the dimension '"
          + spec.dimension().name() + "' by " + spec.dimension().key() + ". Fix: give the table of the dimension "
          + "the enrichment joins with (--table)");
    }
    List<Version> out = new ArrayList<>();
    try (Stream<Version> rows = table.latest().scan()) {
      rows.forEach(v -> {
        List<Object> attrs = new ArrayList<>(from.length);
        for (int p : from) {
          attrs.add(v.attributes().get(p));
        }
        out.add(v.withAttributes(attrs));
      });
    }
    return out;
  }
}
