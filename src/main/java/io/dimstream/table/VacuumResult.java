package io.dimstream.table;

import java.util.List;

/** The outcome of {@link DeltaTable#vacuum}: the data files deleted, relative to the table root. */
public record VacuumResult(List<String> deletedFiles, long bytesDeleted) {
  public VacuumResult {
    deletedFiles = List.copyOf(deletedFiles);
  }
}
