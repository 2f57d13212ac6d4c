package io.dimstream.table.internal.commit;

import io.dimstream.table.internal.actions.AddFile;
import java.util.List;

/** The data files a commit adds and removes, and the row counts for commitInfo's operationMetrics. */
public record CommitPlan(List<AddFile> added, List<AddFile> removed, long inserted, long updated, long deleted,
    long copied, long outputRows) {
  public boolean isEmpty() {
    return added.isEmpty() && removed.isEmpty();
  }
}
