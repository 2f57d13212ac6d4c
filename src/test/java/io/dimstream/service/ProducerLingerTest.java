package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class ProducerLingerTest {
  @Test
  void shouldSetTheProducersLingerWhenTheUserSetNone() {
    Properties p = new Properties();
    ProducerLinger.applyDefault(p);
    assertThat(p).containsEntry("producer.linger.ms", "5").doesNotContainKey("linger.ms");
  }

  @Test
  void shouldKeepALingerTheUserSetForEveryClient() {
    Properties p = new Properties();
    p.put("linger.ms", "50");
    ProducerLinger.applyDefault(p);
    assertThat(p).containsEntry("linger.ms", "50").doesNotContainKey("producer.linger.ms");
  }

  @Test
  void shouldKeepALingerTheUserSetForTheProducers() {
    Properties p = new Properties();
    p.put("producer.linger.ms", "100");
    ProducerLinger.applyDefault(p);
    assertThat(p).containsEntry("producer.linger.ms", "100").doesNotContainKey("linger.ms");
  }
}
