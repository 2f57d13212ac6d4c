/** Parquet data files: the layout of version rows, writing and reading them, statistics, buckets and partitions. */
package io.dimstream.table.internal.files;
