package io.dimstream.service;

import io.dimstream.compactor.Compactor;
import io.dimstream.compactor.LeaseHeldException;
import io.dimstream.query.http.ServiceMetrics;
import io.dimstream.table.DeltaTable;
import io.dimstream.topology.TopologyMetrics;
import io.dimstream.topology.TopologyMetrics.Counter;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;

/** The counters behind {@code /metrics}, read from the topology's Streams metrics, the compactor and the table. */
final class ServiceMetricsReader implements ServiceMetrics {
  private final Supplier<KafkaStreams> streams;
  private final Supplier<Compactor> compactor;
  private final DeltaTable table;
  private final StreamThreadWatch threads;
  private final Supplier<java.util.Map<String, java.util.Map<String, Long>>> enrichments;

  /** Both suppliers may return null while the service starts. */
  ServiceMetricsReader(Supplier<KafkaStreams> streams, Supplier<Compactor> compactor, DeltaTable table,
      StreamThreadWatch threads) {
    this(streams, compactor, table, threads, java.util.Map::of);
  }

  /** With the enrichments' counters, read at each call. */
  ServiceMetricsReader(Supplier<KafkaStreams> streams, Supplier<Compactor> compactor, DeltaTable table,
      StreamThreadWatch threads, Supplier<java.util.Map<String, java.util.Map<String, Long>>> enrichments) {
    this.enrichments = enrichments;
    this.streams = streams;
    this.compactor = compactor;
    this.table = table;
    this.threads = threads;
  }

  @Override
  public java.util.Map<String, java.util.Map<String, Long>> enrichments() {
    return enrichments.get();
  }

  @Override
  public long eventsIn() {
    // events-in counts applied events only; the ones sent to the DLQ and the skipped Debezium tombstones were read
    // from the changes topic too
    return (long) (total(Counter.EVENTS_IN) + total(Counter.DLQ_RECORDS) + total(Counter.TOMBSTONES_SKIPPED));
  }

  @Override
  public long versionsOut() {
    return (long) total(Counter.VERSIONS_OUT);
  }

  @Override
  public long lateEventsSpliced() {
    return (long) total(Counter.LATE_SPLICED);
  }

  @Override
  public long dlqRecords() {
    Compactor c = compactor.get();
    return (long) total(Counter.DLQ_RECORDS) + (c == null ? 0 : c.deadLettered());
  }

  @Override
  public long tombstonesSkipped() {
    return (long) total(Counter.TOMBSTONES_SKIPPED);
  }

  @Override
  public long streamThreadFailures() {
    return threads.failures();
  }

  @Override
  public long compactorFailed() {
    Compactor c = compactor.get();
    Throwable f = c == null ? null : c.failure();
    return f == null || f instanceof LeaseHeldException ? 0 : 1;
  }

  @Override
  public long compactionLag() {
    Compactor c = compactor.get();
    return c == null ? 0 : Math.max(0, c.lag());
  }

  @Override
  public long lastCommitVersion() {
    return table.latest().version();
  }

  @Override
  public java.util.Map<String, Long> unknownFields() {
    KafkaStreams s = streams.get();
    if (s == null) {
      return java.util.Map.of();
    }
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    TopologyMetrics.totalsBy(s.metrics(), Counter.UNKNOWN_FIELDS, TopologyMetrics.FIELD_TAG)
        .forEach((field, n) -> out.put(field, n.longValue()));
    return out;
  }

  private double total(Counter counter) {
    KafkaStreams s = streams.get();
    return s == null ? 0 : TopologyMetrics.total(s.metrics(), counter);
  }
}
