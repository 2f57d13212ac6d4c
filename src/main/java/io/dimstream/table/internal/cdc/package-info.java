/** The change data feed: which rows a commit changed, and the {@code _change_data/} files that record them. */
package io.dimstream.table.internal.cdc;
