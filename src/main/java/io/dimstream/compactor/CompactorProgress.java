package io.dimstream.compactor;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the compactor has done and how far behind the versions topic it is, for {@code /metrics} and {@code /health}:
 * written by the compactor's thread, read by any.
 */
final class CompactorProgress {
  private static final Logger LOG = LoggerFactory.getLogger(CompactorProgress.class);
  /** How often a busy compactor asks the broker for end offsets (an idle one asks after every empty poll). */
  static final Duration LAG_INTERVAL = Duration.ofSeconds(1);

  private final Clock clock;
  private final AtomicLong lag = new AtomicLong(-1);
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong recordsApplied = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private volatile long lastCommitMillis;
  /** When the lag was last measured (clock millis); only the compactor thread uses it. */
  private long lagMeasuredMillis = Long.MIN_VALUE / 2;
  /** False while records were read after the last lag measurement: a lag of 0 then proves nothing. */
  private volatile boolean lagCurrent;
  private volatile int pending = -1;

  CompactorProgress(Clock clock) {
    this.clock = clock;
  }

  /** A batch of {@code records} is in the table. */
  void committed(int records) {
    recordsApplied.addAndGet(records);
    commits.incrementAndGet();
    lastCommitMillis = clock.millis();
  }

  void deadLettered() {
    deadLettered.incrementAndGet();
  }

  /** Records read and not yet committed. */
  void pending(int records) {
    pending = records;
  }

  /**
   * After a poll: measures the lag of {@code partitions} (null before the group first assigned any: the lag stays
   * unknown). End offsets cost a broker round trip: under load once per {@link #LAG_INTERVAL}, when idle at once, so
   * that {@link #isCaughtUp} turns true as soon as the last record is in the table.
   */
  void afterPoll(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions, boolean polledNothing) {
    if (!polledNothing && clock.millis() - lagMeasuredMillis < LAG_INTERVAL.toMillis()) {
      lagCurrent = false; // records arrived since the last measurement: more may wait on the broker
      return;
    }
    if (partitions == null) {
      return;
    }
    try {
      Map<TopicPartition, Long> ends = c.endOffsets(partitions, Duration.ofSeconds(5));
      long total = 0;
      for (TopicPartition tp : partitions) {
        total += Math.max(0, ends.getOrDefault(tp, 0L) - c.position(tp, Duration.ofSeconds(5)));
      }
      lag.set(total);
      lagMeasuredMillis = clock.millis();
      lagCurrent = true;
    } catch (RuntimeException e) {
      LOG.debug("Could not measure the compaction lag: {}", e.toString());
    }
  }

  long lag() {
    return lag.get();
  }

  boolean isCaughtUp() {
    return lagCurrent && lag.get() == 0 && pending == 0;
  }

  long commits() {
    return commits.get();
  }

  long deadLetters() {
    return deadLettered.get();
  }

  long recordsApplied() {
    return recordsApplied.get();
  }

  long lastCommitMillis() {
    return lastCommitMillis;
  }
}
