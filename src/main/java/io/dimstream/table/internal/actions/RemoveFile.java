package io.dimstream.table.internal.actions;

import java.util.Map;

/** The {@code remove} action: a data file that stops being part of the table (a tombstone until vacuum). */
public record RemoveFile(String path, long deletionTimestamp, boolean dataChange, Map<String, String> partitionValues,
    long size) implements Action {
  public RemoveFile {
    partitionValues = Map.copyOf(partitionValues);
  }
}
