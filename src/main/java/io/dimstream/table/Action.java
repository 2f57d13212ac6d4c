package io.dimstream.table;

/** One action of a Delta commit, named after the protocol. */
sealed interface Action permits AddFile, RemoveFile, SetTransaction, CommitInfo, Metadata, Protocol {}
