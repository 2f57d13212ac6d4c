package io.dimstream.table.internal.actions;

/** One action of a Delta commit, named after the protocol. */
public sealed interface Action
    permits AddFile, AddCDCFile, RemoveFile, SetTransaction, CommitInfo, Metadata, Protocol {}
