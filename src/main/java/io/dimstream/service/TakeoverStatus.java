package io.dimstream.service;

import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** How far the service is in taking over its table's history; read by {@code /health} and the progress log. */
final class TakeoverStatus {
  private final Clock clock;
  private final AtomicLong rows = new AtomicLong();
  private volatile String phase;
  private volatile long tableVersion = -1;
  private volatile long totalRows = -1;
  private volatile long startedMillis;
  private volatile String reason = "";

  TakeoverStatus(Clock clock) {
    this.clock = clock;
  }

  /** A takeover begins, for {@code reason}. */
  void started(String reason) {
    this.reason = reason;
    this.startedMillis = clock.millis();
    phase("waiting for the compactor to apply the versions topic");
  }

  /** A new step begins; a step that reads the table's rows counts them from 0 against {@code totalRows}. */
  void phase(String phase, long tableVersion, long totalRows) {
    this.tableVersion = tableVersion;
    this.totalRows = totalRows;
    rows.set(0);
    this.phase = phase;
  }

  void phase(String phase) {
    phase(phase, tableVersion, -1);
  }

  void rowRead() {
    rows.incrementAndGet();
  }

  long elapsedMillis() {
    return clock.millis() - startedMillis;
  }

  void done() {
    phase = null;
  }

  /** A sentence on the takeover under way, or empty when none is. */
  Optional<String> describe() {
    String p = phase;
    if (p == null) {
      return Optional.empty();
    }
    long n = rows.get();
    long total = totalRows;
    String counted = total > 0 ? String.format(": %,d of %,d rows (%d%%)", n, total, Math.min(100, 100 * n / total))
        : n > 0 ? String.format(": %,d rows", n) : "";
    String at = tableVersion >= 0 ? " of table version " + tableVersion : "";
    return Optional.of(String.format("taking over the table's history%s (%s): %s%s, %d s", at, reason, p, counted,
        elapsedMillis() / 1000));
  }
}
