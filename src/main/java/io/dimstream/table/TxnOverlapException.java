package io.dimstream.table;

import java.util.Map;

/**
 * A commit's {@code txn} markers are partly recorded already, or the table records a version at or past where the
 * commit's changes were read from ({@link TxnFence}): another writer has applied some of the same source offsets.
 * Committing would re-apply stale changes, so nothing was written. Not retried: the writer must re-read its source
 * from the offsets the table records.
 */
public final class TxnOverlapException extends TableException {
  private final Map<String, Long> recorded;

  public TxnOverlapException(String message, Map<String, Long> recorded) {
    super(message);
    this.recorded = Map.copyOf(recorded);
  }

  /** The recorded versions of the overlapping appIds. */
  public Map<String, Long> recorded() {
    return recorded;
  }
}
