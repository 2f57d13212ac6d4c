package io.dimstream.table.internal.commit;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.files.SpecCodec;
import io.dimstream.types.Column;
import java.util.ArrayList;
import java.util.List;

/**
 * What a new spec changes in a table's stored one, as far as the table may follow it: added columns, widened
 * columns and columns moved in or out of {@code track} (which apply to events from then on).
 */
record SpecDiff(List<String> addedColumns, List<TypeChange> widened, List<String> nowTracked,
    List<String> noLongerTracked) {

  static SpecDiff of(DimensionSpec stored, DimensionSpec asked) {
    List<String> added = SpecCodec.tableColumns(asked).stream().map(Column::name)
        .filter(n -> stored.column(n) == null).toList();
    List<TypeChange> widened = new ArrayList<>();
    for (Column c : SpecCodec.tableColumns(stored)) {
      Column n = asked.column(c.name());
      if (n != null && !n.type().equals(c.type())) {
        widened.add(new TypeChange(c.name(), c.type(), n.type()));
      }
    }
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
    return new SpecDiff(added, List.copyOf(widened), List.copyOf(in), List.copyOf(out));
  }

  /**
   * The commit's operation: {@code ADD COLUMNS} when columns are added, else {@code CHANGE COLUMN} (Delta's name for
   * a type change) when columns are widened, else {@code SET TBLPROPERTIES}.
   */
  String operation() {
    if (!addedColumns.isEmpty()) {
      return "ADD COLUMNS";
    }
    return widened.isEmpty() ? "SET TBLPROPERTIES" : "CHANGE COLUMN";
  }

  /** For the log line: {@code added columns [tier]; widened [amount int -> long]; now tracked [city]; ...}. */
  String describe() {
    return "added columns " + addedColumns + (widened.isEmpty() ? "" : "; widened " + widened) + "; now tracked "
        + nowTracked + "; no longer tracked " + noLongerTracked;
  }
}
