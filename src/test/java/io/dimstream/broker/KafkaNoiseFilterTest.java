package io.dimstream.broker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.spi.FilterReply;
import org.junit.jupiter.api.Test;

class KafkaNoiseFilterTest {
  private final LoggerContext context = new LoggerContext();
  private final KafkaNoiseFilter filter = new KafkaNoiseFilter();

  private FilterReply decide(String logger, Level level, String format) {
    Logger l = context.getLogger(logger);
    return filter.decide(null, l, level, format, null, null);
  }

  @Test
  void shouldDropTheControllerActivationWarningOfEveryStart() {
    assertThat(decide("org.apache.kafka.controller.QuorumController", Level.WARN,
        "[QuorumController id=1] Performing controller activation. The metadata log appears to be empty."))
        .isEqualTo(FilterReply.DENY);
  }

  @Test
  void shouldDropTheDoubleCloseWarningOfEveryShutdown() {
    assertThat(decide("org.apache.kafka.clients.NetworkClient", Level.WARN,
        "[NodeToControllerChannelManager id=1 name=registration] Attempting to close NetworkClient that has "
            + "already been closed."))
        .isEqualTo(FilterReply.DENY);
  }

  @Test
  void shouldKeepOtherWarningsOfTheSameLoggers() {
    assertThat(decide("org.apache.kafka.clients.NetworkClient", Level.WARN,
        "[AdminClient clientId=a] Connection to node -1 (/127.0.0.1:9092) could not be established."))
        .isEqualTo(FilterReply.NEUTRAL);
  }

  @Test
  void shouldKeepErrorsAndOtherLoggers() {
    assertThat(decide("org.apache.kafka.controller.QuorumController", Level.ERROR,
        "Performing controller activation failed")).isEqualTo(FilterReply.NEUTRAL);
    assertThat(decide("io.dimstream.cli.Run", Level.WARN, "Performing controller activation"))
        .isEqualTo(FilterReply.NEUTRAL);
    assertThat(decide("org.apache.kafka.clients.NetworkClient", Level.WARN, null)).isEqualTo(FilterReply.NEUTRAL);
  }
}
