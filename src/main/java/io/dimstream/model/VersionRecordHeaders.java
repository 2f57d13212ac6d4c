package io.dimstream.model;

/** Names of the headers a versions-topic record may carry beside its key and value. */
public final class VersionRecordHeaders {
  private VersionRecordHeaders() {}

  /**
   * Marks a version record written from the table (a takeover's replay of the table's rows to a versions topic that
   * did not hold them): the table holds its version already, so the compactor skips it.
   */
  public static final String FROM_TABLE = "dimstream.from-table";
}
