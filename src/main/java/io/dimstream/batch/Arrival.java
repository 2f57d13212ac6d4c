package io.dimstream.batch;

import io.dimstream.model.ChangeEvent;

/**
 * A decoded event of the backfill input with its 1-based line (its arrival position) and its unchanged record, or,
 * once read back from its encoded partition, null and where the record is in the partition ({@code valueAt},
 * else -1): only a dead letter needs the record again.
 */
record Arrival(long line, ChangeEvent event, byte[] value, long valueAt) {
  Arrival(long line, ChangeEvent event, byte[] value) {
    this(line, event, value, -1);
  }
}
