package io.dimstream.query;

import java.time.Instant;

/** Which table version a query reads: the latest, a given version, or the one current at a given commit time. */
public sealed interface TimeTravel {
  Latest LATEST = new Latest();

  /** The latest committed version. */
  record Latest() implements TimeTravel {}

  /** Table version {@code version} (0 = the first commit). */
  record AtVersion(long version) implements TimeTravel {}

  /** The latest version committed at or before {@code timestamp}. */
  record AtTimestamp(Instant timestamp) implements TimeTravel {}
}
