package io.dimstream.table;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link DeltaTable} instance behaves (not stored in the table).
 *
 * @param clock                 source of commit timestamps and vacuum cut-offs
 * @param maxCommitAttempts     attempts per {@link DeltaTable#commit} before {@link CommitConflictException}; at least 1
 * @param retryBackoff          base delay between attempts (doubled each time, with jitter)
 * @param backgroundCheckpoints write the checkpoint due every {@code delta.checkpointInterval} commits on a background
 *                              thread, off the commit's path (a long-running writer such as the compactor); false:
 *                              the commit that makes it due writes it before it returns
 * @param positionIndexDir      a local directory where a merge-on-read writer keeps the index of its current rows on
 *                              disk, across restarts (a writer that runs for long, such as the compactor); null: the
 *                              index is built on the heap when first needed and lives as long as the instance
 */
public record TableOptions(Clock clock, int maxCommitAttempts, Duration retryBackoff, boolean backgroundCheckpoints,
    Path positionIndexDir) {
  public TableOptions {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(retryBackoff, "retryBackoff");
    if (maxCommitAttempts < 1) {
      throw new IllegalArgumentException("maxCommitAttempts must be at least 1, got " + maxCommitAttempts);
    }
  }

  /** Checkpoints written by the commit that makes them due, the position index on the heap. */
  public TableOptions(Clock clock, int maxCommitAttempts, Duration retryBackoff) {
    this(clock, maxCommitAttempts, retryBackoff, false, null);
  }

  /** System UTC clock, 5 attempts, 20 ms base backoff, checkpoints written by the commit. */
  public static TableOptions defaults() {
    return new TableOptions(Clock.systemUTC(), 5, Duration.ofMillis(20));
  }

  public TableOptions withClock(Clock c) {
    return new TableOptions(c, maxCommitAttempts, retryBackoff, backgroundCheckpoints, positionIndexDir);
  }

  public TableOptions withMaxCommitAttempts(int n) {
    return new TableOptions(clock, n, retryBackoff, backgroundCheckpoints, positionIndexDir);
  }

  public TableOptions withBackgroundCheckpoints(boolean background) {
    return new TableOptions(clock, maxCommitAttempts, retryBackoff, background, positionIndexDir);
  }

  public TableOptions withPositionIndexDir(Path dir) {
    return new TableOptions(clock, maxCommitAttempts, retryBackoff, backgroundCheckpoints, dir);
  }
}
