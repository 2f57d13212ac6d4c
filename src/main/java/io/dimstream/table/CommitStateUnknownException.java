package io.dimstream.table;

/**
 * Writing the commit file failed in a way that leaves it unknown whether the commit happened (for example an
 * I/O error after the file may have been linked). The writer must stop and must not delete the data files it
 * wrote: reopen the table to learn its state.
 */
public final class CommitStateUnknownException extends TableException {
  public CommitStateUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
