package io.dimstream.service;

import io.dimstream.spec.DimensionSpec;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The topology's {@code commit.interval.ms} unless {@code service.kafka} sets one. Under exactly-once a record is
 * visible downstream only once its transaction commits, so the interval bounds the latency from below, once per
 * transaction a change crosses: one with a keyed changes topic, two with the repartition hop (changes → repartition →
 * versions), which therefore commits twice as often to keep the same budget.
 */
public final class CommitInterval {
  /**
   * One transaction per change. 100 ms rather than Kafka's 30 s: at 2k events/s the shorter interval cost no
   * measurable CPU per event, and 200 ms bought no throughput (docs/PERFORMANCE.md).
   */
  public static final long KEYED_MS = 100;
  /**
   * Two transactions per change. At 2,000 events/s on 2 cores the p99 was 239–264 ms at 100 ms and 147 ms at 50 ms,
   * for about 10 % less unpaced throughput (measured with bench/run; docs/PERFORMANCE.md).
   */
  public static final long REPARTITIONED_MS = 50;

  private CommitInterval() {}

  /** The default for the spec's topology. */
  public static long defaultMs(DimensionSpec spec) {
    return spec.topics().changesKeyed() ? KEYED_MS : REPARTITIONED_MS;
  }

  /** Sets the default unless the properties hold a commit interval already (the user's, from service.kafka). */
  static void applyDefault(Properties props, DimensionSpec spec) {
    props.putIfAbsent(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(defaultMs(spec)));
  }
}
