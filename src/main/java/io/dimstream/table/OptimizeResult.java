package io.dimstream.table;

/**
 * The outcome of {@link DeltaTable#optimize()}.
 *
 * @param version the version of the OPTIMIZE commit, or the current version when there was nothing to merge
 */
public record OptimizeResult(long version, boolean committed, int filesRemoved, int filesAdded, long rowsRewritten) {}
