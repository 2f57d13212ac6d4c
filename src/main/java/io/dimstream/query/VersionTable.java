package io.dimstream.query;

import io.dimstream.spec.DimensionSpec;
import java.util.List;

/** A dimension's table as the query side reads it: snapshots for time travel, and its commit history. */
public interface VersionTable {

  DimensionSpec spec();

  /**
   * The versions as of the chosen table version.
   *
   * @throws QueryException {@link QueryException.Reason#NOT_FOUND} when that table version does not exist
   */
  VersionSource at(TimeTravel when);

  /** Up to {@code limit} commits, newest first. */
  List<TableCommit> commits(int limit);
}
