package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class TaskIdleTest {
  @Test
  void shouldNotHoldBackAnEnrichmentTaskWhenTheUserSetNothing() {
    Properties p = new Properties();
    TaskIdle.applyDefault(p, true);
    assertThat(p).containsEntry("max.task.idle.ms", "-1");
  }

  @Test
  void shouldLeaveKafkaStreamsDefaultToATopologyWithoutEnrichments() {
    Properties p = new Properties();
    TaskIdle.applyDefault(p, false);
    assertThat(p).doesNotContainKey("max.task.idle.ms");
  }

  @Test
  void shouldKeepTheIdleTimeTheUserSet() {
    Properties p = new Properties();
    p.put("max.task.idle.ms", "500");
    TaskIdle.applyDefault(p, true);
    assertThat(p).containsEntry("max.task.idle.ms", "500");
  }
}
