package io.dimstream.service;

import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/** The service's default {@code linger.ms} for the topology's producers, unless the user set one. */
public final class ProducerLinger {
  /**
   * Kafka Streams sets its producers' {@code linger.ms} to 100 ms, as long as the keyed topology's commit interval: under
   * exactly-once the records of an interval then leave only when the commit flushes them, and every commit first
   * sends and waits for a whole interval's records before it can end the transaction, time that every record's
   * produce → versions latency pays. At 5 ms the records are on the broker while the interval runs and the commit
   * ends the transaction at once; an unpaced load still fills batches by size (docs/PERFORMANCE.md: CPU per event).
   */
  public static final long DEFAULT_MS = 5;

  private ProducerLinger() {}

  /** Sets {@code producer.linger.ms} unless {@code props} has {@code linger.ms} or {@code producer.linger.ms}. */
  static void applyDefault(Properties props) {
    String prefixed = StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG);
    if (!props.containsKey(ProducerConfig.LINGER_MS_CONFIG) && !props.containsKey(prefixed)) {
      props.put(prefixed, Long.toString(DEFAULT_MS));
    }
  }
}
