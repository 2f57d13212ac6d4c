package io.dimstream.table.internal.actions;

import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import java.util.Map;

/**
 * The {@code add} action: a data file that is part of the table. {@code path} is relative and URI-encoded.
 *
 * @param deletionVector the rows of the file that are deleted; null when none is
 * @param tags           the action's {@code tags} (dimstream writes its owner partition there); empty when none
 */
public record AddFile(String path, Map<String, String> partitionValues, long size, long modificationTime,
    boolean dataChange, String stats, DeletionVectorDescriptor deletionVector, Map<String, String> tags)
    implements Action {
  public AddFile {
    partitionValues = Map.copyOf(partitionValues);
    tags = tags == null ? Map.of() : Map.copyOf(tags);
  }

  /** A file without tags. */
  public AddFile(String path, Map<String, String> partitionValues, long size, long modificationTime,
      boolean dataChange, String stats, DeletionVectorDescriptor deletionVector) {
    this(path, partitionValues, size, modificationTime, dataChange, stats, deletionVector, Map.of());
  }

  /** A file without a deletion vector. */
  public AddFile(String path, Map<String, String> partitionValues, long size, long modificationTime,
      boolean dataChange, String stats) {
    this(path, partitionValues, size, modificationTime, dataChange, stats, null);
  }

  public AddFile withDataChange(boolean change) {
    return new AddFile(path, partitionValues, size, modificationTime, change, stats, deletionVector, tags);
  }

  /** The same file with {@code newTags} as its tags. */
  public AddFile withTags(Map<String, String> newTags) {
    return new AddFile(path, partitionValues, size, modificationTime, dataChange, stats, deletionVector, newTags);
  }

  /** The same file with another deletion vector and statistics (re-added with {@code dataChange: true}). */
  public AddFile withDeletionVector(DeletionVectorDescriptor dv, String newStats) {
    return new AddFile(path, partitionValues, size, modificationTime, true, newStats, dv, tags);
  }

  /** The remove of this file, carrying its deletion vector as the protocol asks. */
  public RemoveFile remove(long deletionTimestamp, boolean change) {
    return new RemoveFile(path, deletionTimestamp, change, partitionValues, size, deletionVector);
  }

  /** The file's identity in log replay: its path plus its deletion vector's unique id. */
  public String fileId() {
    return FileIds.of(path, deletionVector);
  }

  /** How many rows of the file its deletion vector deletes (0 without one). */
  public long deletedRows() {
    return deletionVector == null ? 0 : deletionVector.cardinality();
  }
}
