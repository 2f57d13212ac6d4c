package io.dimstream.table.internal.files;

import io.dimstream.table.internal.actions.AddFile;
import java.util.Map;

/**
 * One of the table's two partitions by the {@code is_current} column: the column's name (the spec may rename it),
 * its value as the log's {@code partitionValues} spell it ({@code "true"}/{@code "false"}) and as a boolean.
 */
public record Partition(String column, boolean current) {
  /** The value as written in {@code partitionValues} and in the directory name. */
  public String value() {
    return Boolean.toString(current);
  }

  /** The directory of this partition's data files, relative to the table root ({@code is_current=true}). */
  public String directory() {
    return column + "=" + value();
  }

  /** The {@code partitionValues} of an {@code add} in this partition. */
  public Map<String, String> partitionValues() {
    return Map.of(column, value());
  }

  /** Whether {@code file} lies in this partition, by its recorded partition value. */
  public boolean holds(AddFile file) {
    return value().equals(file.partitionValues().get(column));
  }
}
