package io.dimstream.service;

import io.dimstream.compactor.Compactor;
import io.dimstream.compactor.LeaseHeldException;
import io.dimstream.query.http.Health;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The answer of {@code /health} for one running dimension: up while Kafka Streams runs or rebalances and the
 * compactor runs or stands by for another instance, and stream threads do not keep failing; every condition that makes the service down belongs here.
 */
final class ServiceHealth implements Supplier<Health> {
  private final Supplier<KafkaStreams> streams;
  private final Supplier<Compactor> compactor;
  private final StreamThreadWatch threads;
  private final TakeoverStatus takeover;
  private final Supplier<java.util.Optional<String>> decoderOutage;

  /**
   * Both suppliers of parts may return null while the service starts.
   *
   * @param decoderOutage why change records wait (an unreachable schema registry), empty when none do
   */
  ServiceHealth(Supplier<KafkaStreams> streams, Supplier<Compactor> compactor, StreamThreadWatch threads,
      TakeoverStatus takeover, Supplier<java.util.Optional<String>> decoderOutage) {
    this.streams = streams;
    this.compactor = compactor;
    this.threads = threads;
    this.takeover = takeover;
    this.decoderOutage = decoderOutage;
  }

  @Override
  public Health get() {
    java.util.Optional<String> takingOver = takeover.describe();
    if (takingOver.isPresent()) {
      // not up (the topology does not run yet), and not down: queries are answered from the table meanwhile
      Compactor c = compactor.get();
      Map<String, String> details = new LinkedHashMap<>();
      details.put("takeover", takingOver.get());
      details.put("compactor", compactorState(c, c == null ? null : c.failure()));
      return Health.takingOver(details);
    }
    KafkaStreams s = streams.get();
    KafkaStreams.State state = s == null ? null : s.state();
    Compactor c = compactor.get();
    Throwable f = c == null ? null : c.failure();
    boolean streamsUp = state != null && state.isRunningOrRebalancing();
    boolean compactorUp = f == null || f instanceof LeaseHeldException;
    java.util.Optional<String> threadProblem = threads.problem();
    Map<String, String> details = new LinkedHashMap<>();
    details.put("streams", String.valueOf(state));
    threadProblem.ifPresent(p -> details.put("stream_threads", p));
    details.put("compactor", compactorState(c, f));
    // down while records wait: the table stops following the topic until the registry answers again
    java.util.Optional<String> waiting = decoderOutage.get();
    waiting.ifPresent(w -> details.put("schema_registry", w));
    // shown, not failing: an undeclared field is data the spec leaves out, not an outage
    String unknown = unknownFields(s);
    if (!unknown.isEmpty()) {
      details.put("unknown_fields", unknown);
    }
    return new Health(streamsUp && threadProblem.isEmpty() && compactorUp && waiting.isEmpty(), details);
  }

  /** {@code "loyalty=12, tags=3"}: fields the spec does not declare and how many records carried them. */
  private static String unknownFields(KafkaStreams s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    io.dimstream.topology.TopologyMetrics.totalsBy(s.metrics(), io.dimstream.topology.TopologyMetrics.Counter.UNKNOWN_FIELDS,
        io.dimstream.topology.TopologyMetrics.FIELD_TAG).forEach((field, n) ->
            b.append(b.length() == 0 ? "" : ", ").append(field).append('=').append(n.longValue()));
    return b.toString();
  }

  private static String compactorState(Compactor c, Throwable f) {
    if (c == null) {
      return "starting";
    }
    if (f == null) {
      return "running";
    }
    return f instanceof LeaseHeldException ? "standby (another instance writes the table)" : "failed: " + f.getMessage();
  }
}
