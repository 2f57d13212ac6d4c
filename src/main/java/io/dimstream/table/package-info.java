/** The SCD2 dimension as a Delta Lake table: Parquet data files, a hand-written {@code _delta_log}, snapshots, commits, time travel. */
package io.dimstream.table;
