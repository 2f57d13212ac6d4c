package io.dimstream.table;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link DeltaTable} instance behaves (not stored in the table).
 *
 * @param clock              source of commit timestamps and vacuum cut-offs
 * @param maxCommitAttempts  attempts per {@link DeltaTable#commit} before {@link CommitConflictException}; at least 1
 * @param retryBackoff       base delay between attempts (doubled each time, with jitter)
 */
public record TableOptions(Clock clock, int maxCommitAttempts, Duration retryBackoff) {
  public TableOptions {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(retryBackoff, "retryBackoff");
    if (maxCommitAttempts < 1) {
      throw new IllegalArgumentException("maxCommitAttempts must be at least 1, got " + maxCommitAttempts);
    }
  }

  /** System UTC clock, 5 attempts, 20 ms base backoff. */
  public static TableOptions defaults() {
    return new TableOptions(Clock.systemUTC(), 5, Duration.ofMillis(20));
  }

  public TableOptions withClock(Clock c) {
    return new TableOptions(c, maxCommitAttempts, retryBackoff);
  }

  public TableOptions withMaxCommitAttempts(int n) {
    return new TableOptions(clock, n, retryBackoff);
  }
}
