package io.dimstream.query.http;

import io.dimstream.query.LiveQueries;
import io.dimstream.query.TableCommit;
import java.util.List;
import java.util.Objects;

/**
 * What the endpoint serves for one dimension: key lookups, the table's commit history and the service's metrics.
 *
 * @param commits the latest commits, newest first (for the timeline page); {@link CommitHistory#NONE} when there is
 *                no table yet
 * @param metrics the counters {@code /metrics} exports; {@link ServiceMetrics#NONE} when offline
 */
public record DimensionEndpoint(LiveQueries live, CommitHistory commits, ServiceMetrics metrics) {
  public DimensionEndpoint {
    Objects.requireNonNull(live, "live");
    Objects.requireNonNull(commits, "commits");
    Objects.requireNonNull(metrics, "metrics");
  }

  public String name() {
    return live.spec().name();
  }

  /** A table's commit history, e.g. {@code VersionTable::commits}. */
  @FunctionalInterface
  public interface CommitHistory {
    CommitHistory NONE = limit -> List.of();

    /** Up to {@code limit} commits, newest first. */
    List<TableCommit> latest(int limit);
  }
}
