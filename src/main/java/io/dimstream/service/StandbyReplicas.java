package io.dimstream.service;

import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/** The service's default {@code num.standby.replicas} for the topology, unless the user set one. */
public final class StandbyReplicas {
  /**
   * One warm copy of every stream task's state on another instance. Under exactly-once a task's state is rebuilt from
   * its changelog whenever the instance that ran it crashed, was paused past its session or lost the brokers, and
   * until then its partitions take in nothing; with a standby the group hands the task to the instance that already
   * holds its state and it resumes at once. With several instances it costs one more copy of the state and of its
   * changelog reads.
   */
  public static final int DEFAULT = 1;
  /**
   * With the embedded broker: it lives in this one process, so no other instance can hold a standby, and Kafka Streams
   * would warn at every rebalance that it could not place one.
   */
  public static final int EMBEDDED_BROKER_DEFAULT = 0;

  private StandbyReplicas() {}

  /**
   * Sets {@code num.standby.replicas} unless {@code props} has it.
   *
   * @param embeddedBroker whether the service runs against the broker it started itself
   */
  static void applyDefault(Properties props, boolean embeddedBroker) {
    props.putIfAbsent(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG,
        Integer.toString(embeddedBroker ? EMBEDDED_BROKER_DEFAULT : DEFAULT));
  }
}
