package io.dimstream.table.internal.commit;

import io.dimstream.table.internal.actions.AddCDCFile;
import io.dimstream.table.internal.actions.AddFile;
import java.util.List;

/**
 * The data files a commit adds and removes, its change data files (empty when the table writes no change data feed,
 * or when the commit only inserts), and the row counts for commitInfo's operationMetrics.
 */
public record CommitPlan(List<AddFile> added, List<AddFile> removed, long inserted, long updated, long deleted,
    long copied, long outputRows, List<AddCDCFile> changeData) {
  /** A change data file as an entry of a planner's written files, which a commit that lost its race deletes. */
  static AddFile written(AddCDCFile changeData) {
    return new AddFile(changeData.path(), changeData.partitionValues(), changeData.size(), 0, false, null);
  }

  public boolean isEmpty() {
    return added.isEmpty() && removed.isEmpty();
  }
}
