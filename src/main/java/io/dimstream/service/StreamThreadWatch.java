package io.dimstream.service;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/** Counts stream-thread failures and says when they are too frequent for the topology to count as healthy. */
final class StreamThreadWatch {
  /** This many failures within {@link #WINDOW} turn {@code /health} DOWN: a replaced thread keeps failing. */
  static final int REPEATED = 3;
  static final Duration WINDOW = Duration.ofMinutes(10);

  private final Clock clock;
  private final Deque<Long> recent = new ArrayDeque<>();
  private long total;
  private String last;

  StreamThreadWatch(Clock clock) {
    this.clock = clock;
  }

  synchronized void failed(Throwable e) {
    total++;
    last = String.valueOf(e);
    recent.addLast(clock.millis());
    trim();
  }

  synchronized long failures() {
    return total;
  }

  /** Why the topology is unhealthy, when its threads failed {@link #REPEATED} times within {@link #WINDOW}. */
  synchronized Optional<String> problem() {
    trim();
    if (recent.size() < REPEATED) {
      return Optional.empty();
    }
    return Optional.of("a stream thread failed " + recent.size() + " times in the last " + WINDOW.toMinutes()
        + " minutes and was replaced each time; last error: " + last + ". The log has the stack traces");
  }

  private void trim() {
    long cutoff = clock.millis() - WINDOW.toMillis();
    while (!recent.isEmpty() && recent.peekFirst() < cutoff) {
      recent.removeFirst();
    }
  }
}
