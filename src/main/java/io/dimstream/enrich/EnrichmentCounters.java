package io.dimstream.enrich;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What an enrichment did, counted since it started: facts enriched (first records), unmatched (first records
 * without a version), waited (held back for the dimension to reach their time), corrected (records after the
 * first) and dropped (facts no longer kept for corrections because the dimension's lateness horizon passed them).
 * Thread-safe.
 */
public final class EnrichmentCounters {
  private final AtomicLong enriched = new AtomicLong();
  private final AtomicLong unmatched = new AtomicLong();
  private final AtomicLong waited = new AtomicLong();
  private final AtomicLong corrected = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();

  public long enriched() {
    return enriched.get();
  }

  public long unmatched() {
    return unmatched.get();
  }

  public long waited() {
    return waited.get();
  }

  public long corrected() {
    return corrected.get();
  }

  public long dropped() {
    return dropped.get();
  }

  /** The counters by name, in the order enriched, unmatched, waited, corrected, dropped. */
  public java.util.Map<String, Long> snapshot() {
    java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
    out.put("enriched", enriched());
    out.put("unmatched", unmatched());
    out.put("waited", waited());
    out.put("corrected", corrected());
    out.put("dropped", dropped());
    return out;
  }

  void countFirst(boolean found) {
    enriched.incrementAndGet();
    if (!found) {
      unmatched.incrementAndGet();
    }
  }

  void countWaited() {
    waited.incrementAndGet();
  }

  void countCorrected() {
    corrected.incrementAndGet();
  }

  void countDropped() {
    dropped.incrementAndGet();
  }
}
