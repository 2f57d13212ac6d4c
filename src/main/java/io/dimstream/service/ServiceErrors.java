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

  static ServiceException snapshotNotNewer(Path table, String source, long line, String seq, String newest) {
    return new ServiceException((line > 0 ? source + ", line " + line + ": the row's sequence " : "The snapshot's "
        + "sequence (--at) ") + seq + " is not after the newest sequence in " + table + " (" + newest + "); a "
        + "snapshot older than data already applied would close keys that changed since. Nothing was committed. "
        + "Fix: apply snapshots in order, each with an --at after the table's newest change");
  }
}
