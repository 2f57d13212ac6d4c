/**
 * Offline loads of a dimension's table without Kafka: the backfill of a whole history from files, and the apply of
 * a full snapshot as of one sequence. Both fold with the same history rules as the running service.
 */
package io.dimstream.batch;
