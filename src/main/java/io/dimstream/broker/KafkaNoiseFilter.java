package io.dimstream.broker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;
import org.slf4j.Marker;

/**
 * Drops the warnings an embedded broker logs on every healthy start and stop (the controller's activation on
 * start, a double close of a controller channel on shutdown), so that a Kafka warning in the service's output
 * means something. Installed by {@code logback.xml} as {@code <turboFilter class="...KafkaNoiseFilter"/>}.
 */
public final class KafkaNoiseFilter extends TurboFilter {
  private record Noise(String logger, String text) {}

  private static final List<Noise> NOISE = List.of(
      new Noise("org.apache.kafka.controller.QuorumController", "Performing controller activation"),
      new Noise("org.apache.kafka.clients.NetworkClient",
          "Attempting to close NetworkClient that has already been closed"));

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
      Throwable t) {
    if (format == null || level == null || level.isGreaterOrEqual(Level.ERROR)) {
      return FilterReply.NEUTRAL;
    }
    for (Noise n : NOISE) {
      if (logger.getName().equals(n.logger()) && format.contains(n.text())) {
        return FilterReply.DENY;
      }
    }
    return FilterReply.NEUTRAL;
  }
}
