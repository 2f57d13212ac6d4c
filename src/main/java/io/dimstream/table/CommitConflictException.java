package io.dimstream.table;

/**
 * Another writer committed the table version this writer tried to create, and re-planning on the new snapshot
 * did not succeed within the allowed attempts. Nothing of this writer is in the table; retrying is safe.
 */
public final class CommitConflictException extends TableException {
  private final long version;

  public CommitConflictException(String message, long version) {
    super(message);
    this.version = version;
  }

  /** The table version that was already taken. */
  public long version() {
    return version;
  }
}
