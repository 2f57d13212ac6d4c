package io.dimstream.enrich.streams;

import io.dimstream.enrich.EnrichmentCounters;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.spec.DimensionSpec;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The enrichments of one dimension, added to the dimension's own Kafka Streams application:
 *
 * <pre>
 * &lt;dim&gt;.versions ───────────────────────────────────────────────┬─► enrich ─► &lt;enrichment&gt;.enriched
 * facts ─► key by business key ─┬─ repartition "&lt;enrichment&gt;-facts-by-key" ┘  (keyed by the fact key)
 *                               └─ unreadable ─► &lt;enrichment&gt;.dlq
 * </pre>
 *
 * <p>The versions topic is partitioned by murmur2 of the canonical business key bytes; the facts are keyed by the same
 * bytes and repartitioned with Kafka's default partitioner into as many partitions as the versions topic has, so a
 * key's versions and facts meet in one task. Every enrichment reads the versions topic through one source node.
 */
public final class EnrichmentTopology {
  /** The source node of the dimension's versions topic, shared by every enrichment. */
  public static final String VERSIONS_SOURCE = "enrich-versions-source";
  /**
   * Streams property: whether an enrichment whose versions store starts empty reads the versions written before it
   * from the versions topic ({@link VersionsFill}); default true. Off only where no broker holds the topic (a
   * {@code TopologyTestDriver}, which is fed the whole history).
   */
  public static final String FILL_VERSIONS_CONFIG = "dimstream.enrich.fill.versions";
  /** How often each task releases facts whose grace ran out and finishes runs of changes. */
  public static final Duration DEFAULT_TICK = Duration.ofMillis(200);

  private EnrichmentTopology() {}

  public static String versionsStore(EnrichmentSpec spec) {
    return "enrich-" + spec.name() + "-versions";
  }

  public static String factsStore(EnrichmentSpec spec) {
    return "enrich-" + spec.name() + "-facts";
  }

  /** The name of the facts' repartition step; its topic is {@code <application.id>-<enrichment>-facts-by-key-repartition}. */
  public static String repartitionName(EnrichmentSpec spec) {
    return spec.name() + "-facts-by-key";
  }

  /**
   * Adds {@code enrichments} of {@code dimension} to {@code builder}, which also holds (or will hold) the dimension's
   * topology.
   *
   * @param versionsPartitions the partition count of the dimension's versions topic: the facts are repartitioned
   *                           into as many
   * @return each enrichment's counters, by enrichment name; shared by every task of this application instance
   * @throws IllegalArgumentException when an enrichment names another dimension, or two share a name
   */
  public static Map<String, EnrichmentCounters> build(StreamsBuilder builder, DimensionSpec dimension,
      List<EnrichmentSpec> enrichments, int versionsPartitions, Duration tick) {
    return build(builder, dimension, enrichments, versionsPartitions, tick, Map.of());
  }

  /**
   * As {@link #build(StreamsBuilder, DimensionSpec, List, int, Duration)}; an enrichment named in
   * {@code schemaIds} writes its records in the Confluent wire format with that id (its
   * {@link EnrichmentSpec#enrichedAvroSchema}, registered under {@code <output topic>-value}), the others JSON.
   */
  public static Map<String, EnrichmentCounters> build(StreamsBuilder builder, DimensionSpec dimension,
      List<EnrichmentSpec> enrichments, int versionsPartitions, Duration tick, Map<String, Integer> schemaIds) {
    Map<String, EnrichmentCounters> counters = new LinkedHashMap<>();
    if (enrichments.isEmpty()) {
      return counters;
    }
    KStream<byte[], byte[]> versions = builder.stream(dimension.topics().versions(),
        Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName(VERSIONS_SOURCE));
    for (EnrichmentSpec spec : enrichments) {
      if (!spec.dimension().name().equals(dimension.name())
          || !spec.dimension().topics().versions().equals(dimension.topics().versions())) {
        throw new IllegalArgumentException("enrichment " + spec.name() + " (" + spec.source() + ") joins with the "
            + "dimension " + spec.dimension().name() + ", but the service runs " + dimension.name() + ". Fix: run it "
            + "with the service of its own dimension");
      }
      if (counters.containsKey(spec.name())) {
        throw new IllegalArgumentException("two enrichments are named " + spec.name() + ". Fix: give each its own "
            + "name: it names the stores, the repartition topic and the output topic");
      }
      EnrichmentCounters c = new EnrichmentCounters();
      counters.put(spec.name(), c);
      Integer id = schemaIds.get(spec.name());
      add(builder, spec, versions, versionsPartitions, c, tick, id == null ? OptionalInt.empty() : OptionalInt.of(id));
    }
    return counters;
  }

  private static void add(StreamsBuilder builder, EnrichmentSpec spec, KStream<byte[], byte[]> versions,
      int versionsPartitions, EnrichmentCounters counters, Duration tick, OptionalInt schemaId) {
    String n = spec.name();
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(versionsStore(spec)),
        Serdes.Bytes(), Serdes.ByteArray()));
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(factsStore(spec)),
        Serdes.Bytes(), Serdes.ByteArray()));
    var keyed = builder.stream(spec.facts().topic(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())
            .withName(n + "-facts-source"))
        .process(() -> new FactKeyProcessor(spec), Named.as(n + "-facts-key"))
        .split(Named.as(n + "-facts-"))
        .branch((k, v) -> k != null, Branched.as("accepted"))
        .defaultBranch(Branched.as("rejected"));
    keyed.get(n + "-facts-rejected").to(spec.dlqTopic(),
        Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName(n + "-dlq-sink"));
    KStream<byte[], byte[]> byKey = keyed.get(n + "-facts-accepted").repartition(
        Repartitioned.with(Serdes.ByteArray(), Serdes.ByteArray()).withName(repartitionName(spec))
            .withNumberOfPartitions(versionsPartitions));
    versions.merge(byKey, Named.as(n + "-merge"))
        .process(() -> new EnrichProcessor(spec, schemaId, counters, tick), Named.as(n + "-enrich"), versionsStore(spec),
            factsStore(spec))
        .to(spec.outputTopic(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName(n + "-enriched-sink"));
  }
}
