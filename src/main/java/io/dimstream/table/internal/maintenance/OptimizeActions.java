package io.dimstream.table.internal.maintenance;

import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.log.TableState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The actions of an {@code OPTIMIZE} commit (data unchanged): its commitInfo with Delta's metrics, removes, adds. */
final class OptimizeActions {
  private OptimizeActions() {}

  /**
   * @param dvsRemoved how many removed files carried a deletion vector, or null to leave the metric out
   * @param startNanos {@link System#nanoTime()} when the rewrite began
   */
  static List<Action> of(TableState base, long now, List<AddFile> removed, List<AddFile> added, long outputRows,
      Long dvsRemoved, long startNanos) {
    List<Action> actions = new ArrayList<>();
    removed.forEach(r -> actions.add(r.remove(now, false)));
    actions.addAll(added);
    Map<String, String> params = new LinkedHashMap<>();
    params.put("predicate", "[]");
    params.put("zOrderBy", "[]");
    Map<String, String> m = new LinkedHashMap<>();
    m.put("numRemovedFiles", Integer.toString(removed.size()));
    m.put("numAddedFiles", Integer.toString(added.size()));
    m.put("numRemovedBytes", Long.toString(removed.stream().mapToLong(AddFile::size).sum()));
    m.put("numAddedBytes", Long.toString(added.stream().mapToLong(AddFile::size).sum()));
    if (dvsRemoved != null) {
      m.put("numDeletionVectorsRemoved", Long.toString(dvsRemoved));
    }
    m.put("numOutputRows", Long.toString(outputRows));
    m.put("executionTimeMs", Long.toString((System.nanoTime() - startNanos) / 1_000_000));
    actions.add(0, CommitInfo.of(now, "OPTIMIZE", params, m, base.version, actions.size()));
    return actions;
  }
}
