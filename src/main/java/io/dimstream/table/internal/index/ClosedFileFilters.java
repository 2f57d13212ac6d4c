package io.dimstream.table.internal.index;

import io.dimstream.table.internal.actions.AddFile;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What one process knows of the identities of the closed-version files it wrote or read, by path: the row
 * positions of the files used last ({@link ClosedRowPositions}, 16 bytes per row, within a byte budget), a Bloom
 * filter ({@link IdentityFilter}, 1.25 to 2.5 bytes per row) of the others. A late correction then finds its closed
 * row without reading a file, or reads only a file whose filter says "maybe". Callers hold the monitor of the
 * {@link CurrentRowIndex} that owns it.
 */
public final class ClosedFileFilters {
  /** Positions beyond this many heap bytes fall back to filters: a tenth of the heap, at most 256 MiB. */
  static final long DEFAULT_POSITION_BUDGET = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 10);

  private final Map<String, IdentityFilter> byPath = new HashMap<>();
  /** In access order: the eldest is the first to fall back to a filter. */
  private final LinkedHashMap<String, ClosedRowPositions> positions = new LinkedHashMap<>(16, 0.75f, true);
  private final long positionBudget;
  private long positionBytes;

  public ClosedFileFilters() {
    this(DEFAULT_POSITION_BUDGET);
  }

  /** Keeps at most {@code positionBudget} heap bytes of row positions. */
  public ClosedFileFilters(long positionBudget) {
    this.positionBudget = positionBudget;
  }

  /** The filter of {@code file}, or null when none was built or its deletion vector is older than the file's now. */
  public IdentityFilter get(AddFile file) {
    IdentityFilter f = byPath.get(file.path());
    return f != null && f.covers(file.deletedRows()) ? f : null;
  }

  /** The row positions of {@code file}, or null when none are kept or they predate rows live now. */
  public ClosedRowPositions positions(AddFile file) {
    ClosedRowPositions p = positions.get(file.path());
    return p != null && p.covers(file.deletedRows()) ? p : null;
  }

  public void put(AddFile file, IdentityFilter filter) {
    dropPositions(file.path());
    byPath.put(file.path(), filter);
  }

  /** Keeps the row positions of {@code file} (instead of its filter), turning the least used into filters. */
  public void put(AddFile file, ClosedRowPositions rows) {
    dropPositions(file.path());
    byPath.remove(file.path());
    positions.put(file.path(), rows);
    positionBytes += rows.bytes();
    Iterator<Map.Entry<String, ClosedRowPositions>> eldest = positions.entrySet().iterator();
    while (positionBytes > positionBudget && eldest.hasNext()) {
      Map.Entry<String, ClosedRowPositions> e = eldest.next();
      eldest.remove();
      positionBytes -= e.getValue().bytes();
      byPath.put(e.getKey(), e.getValue().toFilter());
    }
  }

  /** Drops what is known of files no longer live (compacted or removed by other writers). */
  public void retain(Set<String> livePaths) {
    byPath.keySet().retainAll(livePaths);
    Iterator<Map.Entry<String, ClosedRowPositions>> it = positions.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, ClosedRowPositions> e = it.next();
      if (!livePaths.contains(e.getKey())) {
        it.remove();
        positionBytes -= e.getValue().bytes();
      }
    }
  }

  /** Heap bytes of the filters and the row positions. */
  public long bytes() {
    return byPath.values().stream().mapToLong(IdentityFilter::bytes).sum() + positionBytes;
  }

  /** Heap bytes of the row positions alone. */
  public long positionBytes() {
    return positionBytes;
  }

  private void dropPositions(String path) {
    ClosedRowPositions old = positions.remove(path);
    if (old != null) {
      positionBytes -= old.bytes();
    }
  }
}
