package io.dimstream.table;

import java.util.Map;

/** The {@code remove} action: a data file that stops being part of the table (a tombstone until vacuum). */
record RemoveFile(String path, long deletionTimestamp, boolean dataChange, Map<String, String> partitionValues,
    long size) implements Action {
  RemoveFile {
    partitionValues = Map.copyOf(partitionValues);
  }
}
