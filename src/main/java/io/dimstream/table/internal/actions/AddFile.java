package io.dimstream.table.internal.actions;

import java.util.Map;

/** The {@code add} action: a data file that is part of the table. {@code path} is relative and URI-encoded. */
public record AddFile(String path, Map<String, String> partitionValues, long size, long modificationTime,
    boolean dataChange, String stats) implements Action {
  public AddFile {
    partitionValues = Map.copyOf(partitionValues);
  }

  public AddFile withDataChange(boolean change) {
    return new AddFile(path, partitionValues, size, modificationTime, change, stats);
  }

  public RemoveFile remove(long deletionTimestamp, boolean change) {
    return new RemoveFile(path, deletionTimestamp, change, partitionValues, size);
  }
}
