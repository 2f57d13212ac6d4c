package io.dimstream.table.internal.actions;

/** The {@code protocol} action; dimstream writes reader 1 / writer 2 (no table features). */
public record Protocol(int minReaderVersion, int minWriterVersion) implements Action {
  public static final Protocol DEFAULT = new Protocol(1, 2);
}
