package io.dimstream.table.internal.actions;

import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import java.util.Map;

/**
 * The {@code remove} action: a data file that stops being part of the table (a tombstone until vacuum).
 *
 * @param deletionVector the deletion vector the removed file had; null when it had none
 */
public record RemoveFile(String path, long deletionTimestamp, boolean dataChange, Map<String, String> partitionValues,
    long size, DeletionVectorDescriptor deletionVector) implements Action {
  public RemoveFile {
    partitionValues = Map.copyOf(partitionValues);
  }

  /** The remove of a file without a deletion vector. */
  public RemoveFile(String path, long deletionTimestamp, boolean dataChange, Map<String, String> partitionValues,
      long size) {
    this(path, deletionTimestamp, dataChange, partitionValues, size, null);
  }

  /** The removed file's identity in log replay (and its tombstone's key): its path plus its deletion vector's id. */
  public String fileId() {
    return FileIds.of(path, deletionVector);
  }
}
