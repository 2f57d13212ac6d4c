package io.dimstream.batch;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import java.nio.file.Path;

/** Builds the errors of an offline load: what happened, why, and how to fix it. */
final class BatchErrors {
  private BatchErrors() {}

  static BatchException snapshotCompositeSequence(DimensionSpec spec) {
    return new BatchException("Cannot apply a snapshot to " + spec.name() + ": its sequence " + spec.sequence()
        + " has several columns, and a snapshot's --at gives one value. Fix: apply the snapshot as change events "
        + "with `dimstream produce`, or use a spec with a single sequence column");
  }

  static BatchException snapshotBadAt(String at, Column column, String why) {
    return new BatchException("--at '" + at + "' is not a value of the sequence column '" + column.name() + "' ("
        + column.type() + "): " + why + ". Fix: give e.g. 2026-03-01T00:00:00Z for a timestamp, 2026-03-01 for a "
        + "date, or a number for a long sequence");
  }

  static BatchException snapshotRowRejected(String source, long line, String reason, String detail) {
    return new BatchException(source + ", line " + line + ": the snapshot row was rejected (" + reason + ": "
        + detail + "), and a snapshot is applied whole, since a key whose row is missing would be closed. "
        + "Nothing was committed. Fix: correct or remove that row and apply the snapshot again");
  }

  /** A row whose {@code derive} failed in the fold, where only its key and sequence (in the detail) are known. */
  static BatchException snapshotRowFailed(String source, String reason, String detail) {
    return new BatchException(source + ": a snapshot row was rejected (" + reason + ": " + detail + "), and a"
        + " snapshot is applied whole. Nothing was committed. Fix: correct or remove the row of that key and"
        + " sequence, or guard the expression, and apply the snapshot again");
  }

  static BatchException snapshotNotNewer(Path table, String source, long line, String seq, String newest) {
    return new BatchException((line > 0 ? source + ", line " + line + ": the row's sequence " : "The snapshot's "
        + "sequence (--at) ") + seq + " is not after the newest sequence in " + table + " (" + newest + "); a "
        + "snapshot older than data already applied would close keys that changed since. Nothing was committed. "
        + "Fix: apply snapshots in order, each with an --at after the table's newest change");
  }
}
