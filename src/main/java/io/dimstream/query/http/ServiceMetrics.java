package io.dimstream.query.http;

/**
 * The service's counters for {@code GET /metrics}, per dimension; the running service implements it over its
 * topology, compactor and table. Read on every scrape: each method must be cheap and thread-safe. Counters only
 * grow while the service runs.
 */
public interface ServiceMetrics {

  /** Change events read from the changes topic (including the ones sent to the DLQ). */
  long eventsIn();

  /** Version records written to the versions topic (opens, close-outs, corrections, retractions). */
  long versionsOut();

  /** Late events spliced into a key's history (re-folds). */
  long lateEventsSpliced();

  /** Records sent to the dead-letter topic. */
  long dlqRecords();

  /** Version records written to the versions topic but not yet committed to the table. */
  long compactionLag();

  /** The table's latest version; -1 before the first commit. */
  long lastCommitVersion();

  /** Debezium tombstones that followed deletes and were skipped under {@code delete: debezium}. */
  default long tombstonesSkipped() {
    return 0;
  }

  /** Stream threads that failed (and were replaced) since the service started. */
  default long streamThreadFailures() {
    return 0;
  }

  /** 1 while the compactor is stopped by an error (it cannot commit to the table), else 0. */
  default long compactorFailed() {
    return 0;
  }

  /**
   * Per field name the spec does not declare, how many records carried it ({@code unknown_fields: warn}); sorted by
   * name, empty when none.
   */
  default java.util.Map<String, Long> unknownFields() {
    return java.util.Map.of();
  }

  /**
   * Per enrichment run by the service, its fact counters by outcome ({@code enriched}, {@code unmatched},
   * {@code waited}, {@code corrected}, {@code dropped}); empty when it runs none.
   */
  default java.util.Map<String, java.util.Map<String, Long>> enrichments() {
    return java.util.Map.of();
  }

  /** Metrics of a service that reports none yet: every counter 0, no commit. */
  ServiceMetrics NONE = new ServiceMetrics() {
    @Override
    public long eventsIn() {
      return 0;
    }

    @Override
    public long versionsOut() {
      return 0;
    }

    @Override
    public long lateEventsSpliced() {
      return 0;
    }

    @Override
    public long dlqRecords() {
      return 0;
    }

    @Override
    public long compactionLag() {
      return 0;
    }

    @Override
    public long lastCommitVersion() {
      return -1;
    }
  };
}
