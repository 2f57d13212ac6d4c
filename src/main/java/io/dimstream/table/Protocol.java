package io.dimstream.table;

/** The {@code protocol} action; dimstream writes reader 1 / writer 2 (no table features). */
record Protocol(int minReaderVersion, int minWriterVersion) implements Action {
  static final Protocol DEFAULT = new Protocol(1, 2);
}
