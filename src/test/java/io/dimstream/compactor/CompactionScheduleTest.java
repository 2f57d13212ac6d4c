package io.dimstream.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.table.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CompactionScheduleTest {
  private static final Duration GAP = Duration.ofSeconds(10);

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
  private final CompactionSchedule schedule = new CompactionSchedule(clock, GAP);

  @Test
  void shouldRunNoCycleBeforeTheFirstCommit() {
    assertThat(schedule.due(true)).isFalse();
    assertThat(schedule.due(false)).isFalse();
  }

  @Test
  void shouldRunTheFirstCycleRightAfterTheFirstCommit() {
    schedule.committed();

    assertThat(schedule.due(false)).isTrue();
  }

  @Test
  void shouldWaitTheGapBetweenCyclesWhileRecordsArrive() {
    schedule.committed();
    schedule.ran();
    clock.advance(Duration.ofSeconds(1));
    schedule.committed();

    assertThat(schedule.due(false)).isFalse();
    clock.advance(GAP.minusSeconds(2));
    assertThat(schedule.due(false)).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(schedule.due(false)).isTrue();
  }

  @Test
  void shouldRunAtOnceWhenTheTopicIsDrained() {
    schedule.committed();
    schedule.ran();
    clock.advance(Duration.ofMillis(500));
    schedule.committed();

    assertThat(schedule.due(true)).isTrue();
  }

  @Test
  void shouldRunNothingWhenNoCommitLandedSinceTheLastCycle() {
    schedule.committed();
    schedule.ran();
    clock.advance(GAP.multipliedBy(3));

    assertThat(schedule.due(true)).isFalse();
    assertThat(schedule.due(false)).isFalse();
  }
}
