package io.dimstream.table.internal.actions;

import java.util.Map;

/**
 * The {@code cdc} action: a file of change data under {@code _change_data/} that readers of the table's change data
 * feed take this commit's changes from, instead of its {@code add} and {@code remove} actions. It holds the table's
 * data columns plus {@code _change_type}; the partition column's value is in {@code partitionValues}, as for an
 * {@code add}. It is never part of the table's rows, so {@code dataChange} is always false.
 */
public record AddCDCFile(String path, Map<String, String> partitionValues, long size) implements Action {
  public AddCDCFile {
    partitionValues = Map.copyOf(partitionValues);
  }
}
