package io.dimstream.service;

import java.nio.file.Path;

/** Builds the errors of a running dimension: what happened, why, and how to fix it. */
final class ServiceErrors {
  private ServiceErrors() {}

  static ServiceException noBroker(Path hint) {
    return new ServiceException("No Kafka to talk to: the spec has no service.kafka.bootstrap.servers, "
        + "--bootstrap-servers was not given, and no embedded broker of a running `dimstream run` was found (" + hint
        + "). Fix: start `dimstream run --config ...` first, or pass --bootstrap-servers host:port");
  }

  static ServiceException topicReadTimedOut(String topic) {
    return new ServiceException("Reading " + topic + " to its end took over 2 minutes; is the broker up?");
  }

  static ServiceException changesPartitionsChanged(io.dimstream.spec.DimensionSpec spec, String applicationId,
      int now, int builtFor, String changelog) {
    return new ServiceException("The changes topic " + spec.topics().changes() + " has " + now + " partitions, but "
        + "the state of dimension " + spec.name() + " (Kafka Streams application " + applicationId + ", changelog "
        + "topic " + changelog + ") was built for " + builtFor + ". Each key's history lives in the stream task of "
        + "the partition its changes arrive in, and that state cannot be moved between partitions: started like "
        + "this, keys would be applied without their history (Kafka Streams refuses too). Fix: "
        + "keep the changes topic at " + builtFor + " partitions (Kafka cannot remove partitions: produce to a new "
        + "topic with " + builtFor + " partitions and set topics.changes to it), or rebuild for " + now
        + " partitions: stop every instance, run Kafka's `kafka-streams-application-reset --application-id "
        + applicationId + " --input-topics " + spec.topics().changes() + " --to-earliest` (it deletes the "
        + "application's internal topics and rewinds its input), delete each instance's service.data_dir/streams, "
        + "and start with a new service.table_path: the service rebuilds state and table from the whole changes "
        + "topic, which must still hold every change");
  }

  static ServiceException statePartitionsUnknown(String changelog, Throwable cause) {
    return new ServiceException("Could not read the partition count of " + changelog + " (" + cause + "), which "
        + "tells whether the changes topic still has the partitions the state was built for. Fix: check that the "
        + "broker is up and that the service's Kafka user may describe that topic", cause);
  }

  static ServiceException unreadableStateLayouts(Object table, String why) {
    return new ServiceException("The table " + table + " records attribute layouts of earlier specs (table property "
        + io.dimstream.spec.StateLayouts.PROPERTY + ") that this spec's stored state cannot be read with: " + why
        + ". Fix: run with a spec that keeps every column of the table, in the table's order");
  }

  static ServiceException kafkaUnreachable(String servers, java.time.Duration waited, String reason) {
    return new ServiceException("Kafka at " + servers + " did not answer within " + waited.toSeconds() + " s ("
        + "service.kafka_wait), so the service stops: " + reason + ". Fix: start the brokers or fix the network "
        + "between this host and them, check service.kafka.bootstrap.servers, or give service.kafka_wait a longer "
        + "duration (or `forever`, the default)");
  }

  static ServiceException kafkaRefused(String servers, Throwable cause) {
    return new ServiceException("Kafka at " + servers + " refused this service: " + cause.getMessage() + ". Waiting "
        + "does not help here. Fix: check the security settings under service.kafka (security.protocol, sasl.*, "
        + "ssl.*: user, password, trust store) and the user's permissions on the cluster", cause);
  }

  static ServiceException takeoverFailed(io.dimstream.spec.DimensionSpec spec, String changelog, String why) {
    return new ServiceException("Could not take over the table of " + spec.name() + " into its state (changelog topic "
        + changelog + "): " + why + ". Nothing is lost: the table is unchanged and names no state until a takeover"
        + " completes, so the next start takes it over again from the beginning. Fix: check that the broker is up and"
        + " that the service's Kafka user may create, delete and write that topic, then start again");
  }

  static ServiceException lateStateSpec(io.dimstream.spec.DimensionSpec spec, Object table, String stored,
      String now) {
    return new ServiceException("The table " + table + " was written with lateness_horizon " + stored + ", but this"
        + " spec of " + spec.name() + " has " + now + ". The state taken over from the table keeps each key's history"
        + " as far back as the horizon reaches, and a different horizon would accept or refuse other late events than"
        + " the table's writer did. Fix: set lateness_horizon to " + stored + " for this first run on the table; once"
        + " the service has taken it over, a restart with another horizon changes it");
  }
}
