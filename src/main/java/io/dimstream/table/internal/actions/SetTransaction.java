package io.dimstream.table.internal.actions;

/** The {@code txn} action: the latest version an application committed, the exactly-once marker. */
public record SetTransaction(String appId, long version, long lastUpdated) implements Action {}
