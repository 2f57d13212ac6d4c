package io.dimstream.service;

import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/** The service's default {@code num.standby.replicas} for the topology, unless the user set one. */
public final class StandbyReplicas {
  /**
   * One warm copy of every stream task's state on another instance. Under exactly-once a task's state is rebuilt from
   * its changelog whenever the instance that ran it crashed, was paused past its session or lost the brokers, and
   * until then its partitions take in nothing; with a standby the group hands the task to the instance that already
   * holds its state and it resumes at once. A single instance has no other instance to hold a standby, so it costs
   * nothing there; with several it costs one more copy of the state and of its changelog reads.
   */
  public static final int DEFAULT = 1;

  private StandbyReplicas() {}

  /** Sets {@code num.standby.replicas} unless {@code props} has it. */
  static void applyDefault(Properties props) {
    props.putIfAbsent(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, Integer.toString(DEFAULT));
  }
}
