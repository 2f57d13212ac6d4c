/**
 * The SCD2 dimension as a Delta Lake table: the public facade ({@link io.dimstream.table.DeltaTable},
 * {@link io.dimstream.table.Snapshot}, the write builders {@link io.dimstream.table.CommitBuilder} and
 * {@link io.dimstream.table.Compaction}, {@link io.dimstream.table.Transaction}, options, results, exceptions) over
 * the {@code internal} packages, which code outside this package must not use.
 */
package io.dimstream.table;
