package io.dimstream.table.internal.files;

import io.dimstream.table.internal.actions.AddFile;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Parsed statistics of data files, kept per file and layout: parsing the JSON dominates pruning otherwise. */
public final class StatsCache {
  private final Map<String, FileStats> stats = new ConcurrentHashMap<>();

  public FileStats get(AddFile file, TableLayout layout) {
    return stats.computeIfAbsent(file.path() + '\n' + layout.spec.name() + layout.dataColumns.size(),
        k -> FileStats.parse(file.stats(), layout));
  }
}
