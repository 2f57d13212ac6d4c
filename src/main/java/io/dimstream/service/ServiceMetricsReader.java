package io.dimstream.service;

import io.dimstream.compactor.Compactor;
import io.dimstream.compactor.TableSink;
import io.dimstream.query.http.ServiceMetrics;
import io.dimstream.topology.TopologyMetrics;
import io.dimstream.topology.TopologyMetrics.Counter;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;

/** The counters behind {@code /metrics}, read from the topology's Streams metrics, the compactor and the table. */
final class ServiceMetricsReader implements ServiceMetrics {
  private final Supplier<KafkaStreams> streams;
  private final Supplier<Compactor> compactor;
  private final TableSink table;

  /** Both suppliers may return null while the service starts. */
  ServiceMetricsReader(Supplier<KafkaStreams> streams, Supplier<Compactor> compactor, TableSink table) {
    this.streams = streams;
    this.compactor = compactor;
    this.table = table;
  }

  @Override
  public long eventsIn() {
    // events-in counts applied events only; the ones sent to the DLQ were read from the changes topic too
    return (long) (total(Counter.EVENTS_IN) + total(Counter.DLQ_RECORDS));
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
    return (long) total(Counter.DLQ_RECORDS);
  }

  @Override
  public long compactionLag() {
    Compactor c = compactor.get();
    return c == null ? 0 : Math.max(0, c.lag());
  }

  @Override
  public long lastCommitVersion() {
    return table.latestVersion();
  }

  private double total(Counter counter) {
    KafkaStreams s = streams.get();
    return s == null ? 0 : TopologyMetrics.total(s.metrics(), counter);
  }
}
