package io.dimstream.table;

/**
 * The {@code commitInfo.operation} of a commit of version changes, as Delta readers show it in the table's history
 * ({@code DESCRIBE HISTORY}).
 */
public enum Operation {
  /** Rows written without reading the table first: a backfill or the first load of a table. */
  WRITE,
  /** Changes applied on top of the rows the table holds: the compactor's batches, a snapshot's differences. */
  MERGE
}
