/** The _delta_log: commit files, put-if-absent, checkpoints, and replay of the log into a table state. */
package io.dimstream.table.internal.log;
