package io.dimstream.table.internal.commit;

import io.dimstream.types.ColumnType;

/** One widened column: its type in the table's stored spec and in the new spec. */
record TypeChange(String column, ColumnType from, ColumnType to) {
  @Override
  public String toString() {
    return column + " " + from + " -> " + to;
  }
}
