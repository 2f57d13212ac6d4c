package io.dimstream.table.internal.index;

import io.dimstream.table.internal.actions.AddFile;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The identity filters of the closed-version files one process has read, by path: a later commit reads a closed
 * file only when one of its identities may be in it, instead of every file whose statistics admit it. Callers hold
 * the monitor of the {@link CurrentRowIndex} that owns it.
 */
public final class ClosedFileFilters {
  private final Map<String, IdentityFilter> byPath = new HashMap<>();

  /** The filter of {@code file}, or null when none was built or its deletion vector is older than the file's now. */
  public IdentityFilter get(AddFile file) {
    IdentityFilter f = byPath.get(file.path());
    return f != null && f.covers(file.deletedRows()) ? f : null;
  }

  public void put(AddFile file, IdentityFilter filter) {
    byPath.put(file.path(), filter);
  }

  /** Drops the filters of files no longer live (compacted or removed by other writers). */
  public void retain(Set<String> livePaths) {
    byPath.keySet().retainAll(livePaths);
  }

  /** Heap bytes of the filters. */
  public long bytes() {
    return byPath.values().stream().mapToLong(IdentityFilter::bytes).sum();
  }
}
