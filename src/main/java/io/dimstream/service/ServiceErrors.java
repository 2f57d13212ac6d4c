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

  static ServiceException snapshotCompositeSequence(io.dimstream.config.DimensionSpec spec) {
    return new ServiceException("Cannot apply a snapshot to " + spec.name() + ": its sequence " + spec.sequence()
        + " has several columns, and a snapshot's --at gives one value. Fix: apply the snapshot as change events "
        + "with `dimstream produce`, or use a spec with a single sequence column");
  }

  static ServiceException snapshotBadAt(String at, io.dimstream.config.Column column, String why) {
    return new ServiceException("--at '" + at + "' is not a value of the sequence column '" + column.name() + "' ("
        + column.type() + "): " + why + ". Fix: give e.g. 2026-03-01T00:00:00Z for a timestamp, 2026-03-01 for a "
        + "date, or a number for a long sequence");
  }

  static ServiceException snapshotRowRejected(String source, long line, String reason, String detail) {
    return new ServiceException(source + ", line " + line + ": the snapshot row was rejected (" + reason + ": "
        + detail + "), and a snapshot is applied whole, since a key whose row is missing would be closed. "
        + "Nothing was committed. Fix: correct or remove that row and apply the snapshot again");
  }

  /** A row whose {@code derive} failed in the fold, where only its key and sequence (in the detail) are known. */
  static ServiceException snapshotRowFailed(String source, String reason, String detail) {
    return new ServiceException(source + ": a snapshot row was rejected (" + reason + ": " + detail + "), and a"
        + " snapshot is applied whole. Nothing was committed. Fix: correct or remove the row of that key and"
        + " sequence, or guard the expression, and apply the snapshot again");
  }

  static ServiceException snapshotNotNewer(Path table, String source, long line, String seq, String newest) {
    return new ServiceException((line > 0 ? source + ", line " + line + ": the row's sequence " : "The snapshot's "
        + "sequence (--at) ") + seq + " is not after the newest sequence in " + table + " (" + newest + "); a "
        + "snapshot older than data already applied would close keys that changed since. Nothing was committed. "
        + "Fix: apply snapshots in order, each with an --at after the table's newest change");
  }

  static ServiceException changesPartitionsChanged(io.dimstream.config.DimensionSpec spec, String applicationId,
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
        + io.dimstream.config.StateLayouts.PROPERTY + ") that this spec's stored state cannot be read with: " + why
        + ". Fix: run with a spec that keeps every column of the table, in the table's order");
  }
}
