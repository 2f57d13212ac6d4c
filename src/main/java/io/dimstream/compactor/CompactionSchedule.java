package io.dimstream.compactor;

import java.time.Clock;
import java.time.Duration;

/**
 * When the compactor runs a background compaction cycle: once a commit has left work behind, at once when the
 * versions topic is drained, and at most once per {@link #BUSY_GAP} while records keep arriving.
 */
final class CompactionSchedule {
  /**
   * The least time between two cycles while records arrive. A cycle after every commit rewrote the same young files
   * again and again under load (with 1 s commits, 30 % of the compactor thread); waiting lets most rows of a file
   * be deleted before it is rewritten and lets more small files join one merge, so a row is rewritten fewer times.
   */
  static final Duration BUSY_GAP = Duration.ofSeconds(10);

  private final Clock clock;
  private final long gapMillis;
  private long lastCycleMillis;
  private boolean owed;

  CompactionSchedule(Clock clock) {
    this(clock, BUSY_GAP);
  }

  CompactionSchedule(Clock clock, Duration gap) {
    this.clock = clock;
    this.gapMillis = gap.toMillis();
    this.lastCycleMillis = clock.millis() - gapMillis; // the first commit's cycle runs at once
  }

  /** A commit landed: it may have left files with deleted rows or new small files. */
  void committed() {
    owed = true;
  }

  /** Whether to run a cycle now; {@code drained} when the last poll found nothing more to read. */
  boolean due(boolean drained) {
    return owed && (drained || clock.millis() - lastCycleMillis >= gapMillis);
  }

  /** A cycle ran (whatever it found to do). */
  void ran() {
    owed = false;
    lastCycleMillis = clock.millis();
  }
}
