package io.dimstream.table;

/** The {@code txn} action: the latest version an application committed, the exactly-once marker. */
record SetTransaction(String appId, long version, long lastUpdated) implements Action {}
