package io.dimstream.chaos;

/**
 * One injected fault of the history: what, on which process, from when it was in force to when it was healed
 * (the process started again, resumed, or its network restored), epoch ms.
 */
record Fault(Kind kind, String target, String detail, long startMs, long endMs) {
  enum Kind {
    KILL_INSTANCE("kill_instance"), KILL_BROKER("kill_broker"), PAUSE_INSTANCE("pause_instance"),
    PARTITION_FROM_BROKERS("partition_from_brokers"), PARTITION_FROM_STORE("partition_from_store");

    final String label;

    Kind(String label) {
      this.label = label;
    }

    /** A network partition, which needs network namespaces. */
    boolean isPartition() {
      return this == PARTITION_FROM_BROKERS || this == PARTITION_FROM_STORE;
    }
  }

  String toJson(long runStartMs) {
    return String.format("{\"fault\":\"%s\",\"target\":\"%s\",\"detail\":\"%s\",\"at_s\":%.1f,\"for_s\":%.1f}",
        kind.label, target, detail, (startMs - runStartMs) / 1000.0, (endMs - startMs) / 1000.0);
  }
}
