package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class StandbyReplicasTest {
  @Test
  void shouldKeepOneStandbyOfEveryTaskWhenTheUserSetNone() {
    Properties p = new Properties();
    StandbyReplicas.applyDefault(p, false);
    assertThat(p).containsEntry("num.standby.replicas", "1");
  }

  @Test
  void shouldKeepNoStandbyOnTheEmbeddedBrokerWhereNoOtherInstanceCanHoldOne() {
    Properties p = new Properties();
    StandbyReplicas.applyDefault(p, true);
    assertThat(p).containsEntry("num.standby.replicas", "0");
  }

  @Test
  void shouldKeepTheStandbysTheUserSet() {
    Properties p = new Properties();
    p.put("num.standby.replicas", "2");
    StandbyReplicas.applyDefault(p, true);
    assertThat(p).containsEntry("num.standby.replicas", "2");
  }
}
