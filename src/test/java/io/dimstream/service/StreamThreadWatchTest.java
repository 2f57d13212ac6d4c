package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.table.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class StreamThreadWatchTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final StreamThreadWatch watch = new StreamThreadWatch(clock);

  @Test
  void shouldStayHealthyAfterASingleReplacedThread() {
    watch.failed(new IllegalStateException("one bad moment"));

    assertThat(watch.problem()).isEmpty();
    assertThat(watch.failures()).isEqualTo(1);
  }

  @Test
  void shouldReportAThreadThatKeepsFailingWithItsLastError() {
    for (int i = 0; i < 3; i++) {
      watch.failed(new IllegalStateException("failure " + i));
      clock.advance(Duration.ofSeconds(45));
    }

    assertThat(watch.problem()).hasValueSatisfying(p -> assertThat(p).contains("3 times", "failure 2"));
  }

  @Test
  void shouldRecoverWhenTheFailuresAreOlderThanTheWindow() {
    for (int i = 0; i < 3; i++) {
      watch.failed(new IllegalStateException("failure " + i));
    }
    clock.advance(Duration.ofMinutes(11));

    assertThat(watch.problem()).isEmpty();
    assertThat(watch.failures()).isEqualTo(3);
  }
}
