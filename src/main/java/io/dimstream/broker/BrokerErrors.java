package io.dimstream.broker;

import java.nio.file.Path;
import java.time.Duration;

/** Builds every {@link BrokerException}: what happened, why, and how to fix it. */
final class BrokerErrors {
  private BrokerErrors() {}

  static BrokerException dataDirUnusable(Path dataDir, Exception cause) {
    return new BrokerException("Embedded Kafka broker: cannot use data directory " + dataDir + ": "
        + cause.getMessage() + ". Fix: give a writable directory (service.data_dir in the spec)", cause);
  }

  static BrokerException dataDirInUse(Path dataDir) {
    return new BrokerException("Embedded Kafka broker: data directory " + dataDir + " is in use by another "
        + "embedded broker (in this or another process). Fix: stop the other dimstream process, or give this one "
        + "its own service.data_dir");
  }

  static BrokerException portInUse(int port) {
    return new BrokerException("Embedded Kafka broker: port " + port + " on 127.0.0.1 is already in use. "
        + "Fix: stop the process that holds it, choose another port, or use port 0 for a free one");
  }

  static BrokerException formatFailed(Path dataDir, int exitCode, String output) {
    return new BrokerException("Embedded Kafka broker: formatting the storage in " + dataDir + " failed (code "
        + exitCode + "): " + output.strip() + ". Fix: if the directory holds another cluster's data, "
        + "use an empty data directory");
  }

  static BrokerException startFailed(Path dataDir, Throwable cause) {
    String why = cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
    return new BrokerException("Embedded Kafka broker in " + dataDir + " failed to start: " + why
        + ". Fix: make sure no other broker or dimstream process uses this data directory; "
        + "if the directory is damaged, delete it (its topics are lost)", cause);
  }

  static BrokerException managedSetting(String property, String setting) {
    return new BrokerException("Embedded Kafka broker: -D" + property + " sets " + setting + ", which the embedded "
        + "broker manages itself: it picks its ports and its node, and keeps its logs under service.data_dir. Fix: "
        + "remove it; for a broker set up your own way, run one and give its bootstrap.servers under service.kafka");
  }

  static BrokerException interrupted(String what, InterruptedException cause) {
    Thread.currentThread().interrupt();
    return new BrokerException("Interrupted while " + what, cause);
  }

  static BrokerException unreachable(Object bootstrap, Duration timeout, Throwable cause) {
    return new BrokerException("Cannot reach Kafka at " + bootstrap + " within " + timeout.toMillis()
        + " ms to create the dimension's topics. Fix: check bootstrap.servers and the security settings "
        + "(security.protocol, sasl.*, ssl.*) under service.kafka in the spec", cause);
  }

  static BrokerException adminFailed(String what, Object bootstrap, Throwable cause) {
    return new BrokerException("Kafka at " + bootstrap + " refused to " + what + ": " + cause.getMessage()
        + ". Fix: create the topic yourself with the settings in docs/operations.md (Using a real cluster), or grant the client the "
        + "CREATE and DESCRIBE_CONFIGS permissions", cause);
  }

  static BrokerException versionsNotCompacted(String topic, String policy) {
    return new BrokerException("Topic '" + topic + "' exists with cleanup.policy=" + policy
        + ", but a versions topic must be compacted: with deletion, versions older than the retention "
        + "are lost and the table cannot be rebuilt from the topic. Fix: run "
        + "'kafka-configs.sh --alter --entity-type topics --entity-name " + topic
        + " --add-config cleanup.policy=compact', or delete the topic so dimstream creates it");
  }

  static BrokerException outputLimitTooLow(String topic, int current, int maxRecordBytes, int needed, Throwable cause) {
    return new BrokerException("Topic '" + topic + "' accepts records up to " + current + " bytes (max.message.bytes)"
        + ", but for change records up to " + maxRecordBytes + " bytes the service writes records up to " + needed
        + " bytes there, and raising the limit failed: " + cause.getMessage() + ". Fix: set max.message.bytes="
        + needed + " on the topic (kafka-configs --alter --entity-type topics --entity-name " + topic
        + " --add-config max.message.bytes=" + needed + "), or lower service.max_record_bytes.", cause);
  }
}
