package io.dimstream.table.internal.commit;

import io.dimstream.config.Column;
import io.dimstream.config.DimensionSpec;
import io.dimstream.table.internal.files.SpecCodec;
import java.util.ArrayList;
import java.util.List;

/**
 * What a new spec changes in a table's stored one, as far as the table may follow it: added columns and columns
 * moved in or out of {@code track} (which apply to events from then on).
 */
record SpecDiff(List<String> addedColumns, List<String> nowTracked, List<String> noLongerTracked) {

  static SpecDiff of(DimensionSpec stored, DimensionSpec asked) {
    List<String> added = SpecCodec.tableColumns(asked).stream().map(Column::name)
        .filter(n -> stored.column(n) == null).toList();
    List<String> in = new ArrayList<>();
    List<String> out = new ArrayList<>();
    for (Column c : asked.attributeColumns()) {
      boolean was = stored.column(c.name()) != null && stored.isTracked(c.name());
      boolean is = asked.isTracked(c.name());
      // a new column's tracking is part of adding it, not a move
      if (stored.column(c.name()) != null && was != is) {
        (is ? in : out).add(c.name());
      }
    }
    return new SpecDiff(added, List.copyOf(in), List.copyOf(out));
  }

  /** The commit's operation: {@code ADD COLUMNS} when columns are added, else {@code SET TBLPROPERTIES}. */
  String operation() {
    return addedColumns.isEmpty() ? "SET TBLPROPERTIES" : "ADD COLUMNS";
  }

  /** For the log line: {@code added columns [tier]; now tracked [city]; no longer tracked []}. */
  String describe() {
    return "added columns " + addedColumns + "; now tracked " + nowTracked + "; no longer tracked " + noLongerTracked;
  }
}
