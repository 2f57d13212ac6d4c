package io.dimstream.service;

import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/** The service's default {@code max.task.idle.ms} for a topology that runs enrichments, unless the user set one. */
public final class TaskIdle {
  /**
   * Never wait for an input partition that is empty here but has records on the broker. An enrichment task reads two
   * partitions, the dimension's versions and the repartitioned facts, and Kafka Streams by default holds back the
   * one with records until the other's are fetched, so as to process the two in timestamp order. The enrichment does
   * not need that order: a fact joined before a version that covers it is corrected when the version comes. Waiting
   * halved the enrichment's throughput on 2 cores (docs/performance.md), and Kafka's check of the empty
   * partition formats a log message on every record it holds back. The dimension's own tasks each read one
   * partition, so this changes nothing for them.
   */
  public static final long ENRICHING_DEFAULT_MS = StreamsConfig.MAX_TASK_IDLE_MS_DISABLED;

  private TaskIdle() {}

  /** Sets {@code max.task.idle.ms} when the topology runs enrichments, unless {@code props} has it. */
  static void applyDefault(Properties props, boolean enriching) {
    if (enriching) {
      props.putIfAbsent(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, Long.toString(ENRICHING_DEFAULT_MS));
    }
  }
}
