package io.dimstream.table.internal.actions;

import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import java.util.Map;

/**
 * The {@code remove} action: a data file (with the deletion vector it had, null when none) that stops being part of
 * the table (a tombstone until vacuum).
 */
public record RemoveFile(String path, long deletionTimestamp, boolean dataChange, Map<String, String> partitionValues,
    long size, DeletionVectorDescriptor deletionVector) implements Action {
  public RemoveFile {
    partitionValues = Map.copyOf(partitionValues);
  }

  public RemoveFile(String path, long deletionTimestamp, boolean dataChange, Map<String, String> partitionValues,
      long size) {
    this(path, deletionTimestamp, dataChange, partitionValues, size, null);
  }

  /** The tombstone's key in table state: path and DV, as Delta reconciles {@code (path, deletionVector.uniqueId)}. */
  public String tombstoneKey() {
    return deletionVector == null ? path : path + '\n' + deletionVector.uniqueId();
  }
}
