package io.dimstream.table;

/**
 * The outcome of {@link DeltaTable#commit}.
 *
 * @param version   the table version created, or (when {@code committed} is false) the version the table was at
 * @param committed false when nothing was written: every {@code txn} version was already recorded, or there were
 *                  neither changes nor txns
 * @param attempts  how many commit attempts were made (1 when there was no conflict; 0 when skipped)
 */
public record CommitResult(
    long version,
    boolean committed,
    long rowsInserted,
    long rowsUpdated,
    long rowsDeleted,
    long rowsWritten,
    int filesAdded,
    int filesRemoved,
    int attempts,
    long durationMs) {

  public static CommitResult skipped(long version, long durationMs) {
    return new CommitResult(version, false, 0, 0, 0, 0, 0, 0, 0, durationMs);
  }
}
