package io.dimstream.topology;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.DeadLetters;
import io.dimstream.change.RejectReason;
import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.expr.SpecExpressions;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.SizePolicy;
import io.dimstream.spec.StateLayouts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The Kafka Streams topology of one dimension (docs/concepts.md, "The data flow"):
 *
 * <pre>
 * changes ─► decode ─┬─ rejected ─────────────────────────────────────────────► dlq (original bytes + error headers)
 *                    └─ accepted ─► repartition "&lt;dim&gt;-by-key" ─► scd2 ─┬─► versions (partitioned by business key)
 *                                                                      └─► dlq (beyond-lateness-horizon)
 * </pre>
 *
 * <p>Accepted records are re-keyed by their canonical business key bytes and sent through the repartition topic
 * {@code <application.id>-<dim>-by-key-repartition}. Skipping it when the record key "looks" canonical is not
 * safe: whether a record sits in the partition its business key hashes to depends on the producer's key bytes and
 * partitioner, which the topology cannot see, and a key whose records took two paths could be applied out of
 * order. One extra topic hop buys correctness for keyed, unkeyed and Debezium-keyed input alike.
 *
 * <p>Only a spec that declares {@code topics.changes_keyed_by_business_key: true} skips it: the topology is then one
 * sub-topology (decode ─► scd2 ─► versions) and the decoder checks every accepted record against
 * {@link KeyedChanges#partition} with the changes topic's partition count ({@link #CHANGES_PARTITIONS_CONFIG}); a
 * record in another partition goes to the DLQ as {@code wrong-partition} and never reaches the SCD2 processor, so
 * no key's history is ever split between two tasks. An end-of-snapshot marker then ends the snapshot in the task of
 * the partition it arrived in.
 *
 * <p>The SCD2 processor keeps its history in one persistent (RocksDB, changelogged) store, {@link #EVENT_STORE} (key
 * bytes + sequence bytes → event and the version open after it), wrapped as a {@link RocksDbHistoryStore}: a key's
 * newest event is its current state, so an in-order event writes one state record. A wall-clock punctuator (every
 * {@code pruneInterval}, default {@link #DEFAULT_PRUNE_INTERVAL}) starts a pass that prunes events past the lateness
 * horizon, a bounded slice of the store per second.
 */
public final class DimensionTopology {
  /** Source node reading the changes topic. */
  public static final String SOURCE = "changes-source";
  /** Processor node decoding change records. */
  public static final String DECODE_PROCESSOR = "decode";
  /** Processor node applying events to history. */
  public static final String SCD2_PROCESSOR = "scd2";
  /** Sink nodes. */
  public static final String VERSIONS_SINK = "versions-sink";
  public static final String DLQ_SINK = "dlq-sink";
  public static final String LATE_DLQ_SINK = "late-dlq-sink";
  /** Store: canonical key bytes + sequence bytes → {@link io.dimstream.history.StoredEvent} in {@link io.dimstream.codec.StateBinary} form. */
  public static final String EVENT_STORE = "events";
  /**
   * Store: canonical key bytes → the last streamed snapshot that carried the key (deleted when a snapshot ends), plus
   * the newest snapshot's progress.
   */
  public static final String SNAPSHOT_STORE = "snapshots";
  /** Header on DLQ records: the stable reason code. */
  public static final String ERROR_HEADER = DeadLetters.ERROR_HEADER;
  /** Header on DLQ records: a human sentence. */
  public static final String ERROR_DETAIL_HEADER = DeadLetters.DETAIL_HEADER;
  /** Header on versions records: {@code open}, {@code close}, {@code correct} or {@code retract}. */
  public static final String CHANGE_HEADER = "dimstream.change";
  /** The reason code of an event older than its key's newest sequence minus the lateness horizon. */
  public static final String BEYOND_HORIZON = RejectReason.BEYOND_LATENESS_HORIZON;
  public static final Duration DEFAULT_PRUNE_INTERVAL = Duration.ofSeconds(60);
  /**
   * Streams property: the changes topic's partition count, read at start; required when the spec declares
   * {@code topics.changes_keyed_by_business_key: true}, ignored otherwise.
   */
  public static final String CHANGES_PARTITIONS_CONFIG = "dimstream.changes.partitions";
  /**
   * Streams property: the attribute layouts the state stores and the repartition topic may hold records of besides
   * the spec's own, as the table property {@link StateLayouts#PROPERTY} gives them (the layouts of the specs the
   * table was evolved from); absent or empty: none. The service sets it from the table it opens before it starts.
   */
  public static final String STATE_LAYOUTS_CONFIG = "dimstream.state.layouts";

  private DimensionTopology() {}

  /** The name of the repartition step; its topic is {@code <application.id>-<dim>-by-key-repartition}. */
  public static String repartitionName(DimensionSpec spec) {
    return spec.name() + "-by-key";
  }

  /**
   * Adds the dimension's topology to {@code builder}, decoding with {@link ChangeDecoder#forSpec} and pruning every
   * {@link #DEFAULT_PRUNE_INTERVAL}.
   *
   * @throws io.dimstream.change.ChangeException when the spec's Avro schema cannot be used for decoding
   * @throws TopologyException when the columns cannot form the Avro version record of {@code versions_format: avro}
   */
  public static void build(StreamsBuilder builder, DimensionSpec spec) {
    build(builder, spec, SizePolicy.of(spec.service()));
  }

  /**
   * Adds the dimension's topology to {@code builder} with the given size policy (the one {@link #config} must be
   * given too), decoding with {@link ChangeDecoder#forSpec} and pruning every {@link #DEFAULT_PRUNE_INTERVAL}.
   *
   * @throws io.dimstream.change.ChangeException when the spec's Avro schema cannot be used for decoding
   * @throws TopologyException when the columns cannot form the Avro version record of {@code versions_format: avro}
   */
  public static void build(StreamsBuilder builder, DimensionSpec spec, SizePolicy sizes) {
    build(builder, spec, ChangeDecoder.forSpec(spec), DEFAULT_PRUNE_INTERVAL, sizes);
  }

  /**
   * Adds the dimension's topology to {@code builder}, decoding with {@code decoder}.
   *
   * @param pruneInterval wall-clock interval of the event-store pruning punctuator; must be positive
   * @throws TopologyException when the columns cannot form the Avro version record of {@code versions_format: avro}
   */
  public static void build(StreamsBuilder builder, DimensionSpec spec, ChangeDecoder decoder, Duration pruneInterval) {
    build(builder, spec, decoder, pruneInterval, SizePolicy.of(spec.service()));
  }

  /**
   * Adds the dimension's topology to {@code builder}, decoding with {@code decoder} and rejecting change records
   * over {@code sizes} as {@code too-large}.
   *
   * @param pruneInterval wall-clock interval of the event-store pruning punctuator; must be positive
   * @throws TopologyException when the columns cannot form the Avro version record of {@code versions_format: avro}
   */
  public static void build(StreamsBuilder builder, DimensionSpec spec, ChangeDecoder decoder, Duration pruneInterval,
      SizePolicy sizes) {
    build(builder, spec, decoder, pruneInterval, sizes, java.util.OptionalInt.empty());
  }

  /**
   * As {@link #build(StreamsBuilder, DimensionSpec, ChangeDecoder, Duration, SizePolicy)}, writing each version
   * record in the Confluent wire format ({@link io.dimstream.codec.WireFraming}) when {@code versionsSchemaId}
   * is given: the id of the version schema in the spec's schema registry.
   */
  public static void build(StreamsBuilder builder, DimensionSpec spec, ChangeDecoder decoder, Duration pruneInterval,
      SizePolicy sizes, java.util.OptionalInt versionsSchemaId) {
    // store and client failures are Kafka Streams' to handle; any other failure is the record's, for the DLQ
    Predicate<RuntimeException> kafkaFailures = e -> e instanceof KafkaException;
    VersionRecordCodec versions;
    try {
      versions = VersionRecordCodec.forSpec(spec);
    } catch (IllegalArgumentException e) {
      throw TopologyErrors.unusableVersionsSchema(spec, e.getMessage());
    }
    if (pruneInterval.isNegative() || pruneInterval.isZero()) {
      throw new IllegalArgumentException("the prune interval must be positive, got " + pruneInterval);
    }
    EventJson json = new EventJson(spec);
    // Compiled once here, at start: a spec whose expressions do not check fails before any record is read.
    SpecExpressions expressions = SpecExpressions.compile(spec);
    RecordSizes recordSizes = new RecordSizes(sizes);
    // one per topology, shared by every task: a new field name is logged once per running service
    UnknownFieldWarnings unknownWarnings = new UnknownFieldWarnings(spec.name(), spec.source());
    builder.addStateStore(store(EVENT_STORE));
    builder.addStateStore(store(SNAPSHOT_STORE));

    KStream<byte[], Envelope> decoded = builder
        .stream(spec.topics().changes(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName(SOURCE))
        .process(() -> new DecodeProcessor(spec, new Scd2Step(spec, expressions, decoder, kafkaFailures), json,
            recordSizes, unknownWarnings),
            Named.as(DECODE_PROCESSOR));

    var routes = decoded.split(Named.as("decoded-"))
        .branch((k, v) -> !v.rejected(), Branched.as("accepted"))
        .defaultBranch(Branched.as("rejected"));
    routes.get("decoded-rejected")
        .mapValues(Envelope::sourceValue, Named.as("rejected-original"))
        .to(spec.topics().dlq(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName(DLQ_SINK));

    KStream<byte[], Envelope> accepted = routes.get("decoded-accepted");
    KStream<byte[], Envelope> byKey = spec.topics().changesKeyed() ? accepted // checked by DecodeProcessor
        : accepted.repartition(Repartitioned.with(Serdes.ByteArray(), ENVELOPE).withName(repartitionName(spec))
            .withStreamPartitioner(new MarkerBroadcast()));
    KStream<OutKey, byte[]> out = byKey
        .process(() -> new Scd2Processor(spec, new Scd2Step(spec, expressions, decoder, kafkaFailures), versions,
            pruneInterval, recordSizes), Named.as(SCD2_PROCESSOR), EVENT_STORE, SNAPSHOT_STORE);

    var outputs = out.split(Named.as("scd2-"))
        .branch((k, v) -> k.businessKey() != null, Branched.as("versions"))
        .defaultBranch(Branched.as("late"));
    // framed at the sink: everything before it (sizes, the late-events branch) sees the record as the codec wrote it
    var versionValues = versionsSchemaId.isPresent() ? Serdes.serdeFrom(
        new FramingSerializer(versionsSchemaId.getAsInt()), (topic, v) -> io.dimstream.codec.WireFraming.unframe(v))
        : Serdes.ByteArray();
    outputs.get("scd2-versions").to(spec.topics().versions(),
        Produced.with(OUT_KEY, versionValues).withStreamPartitioner(new BusinessKeyPartitioner())
            .withName(VERSIONS_SINK));
    outputs.get("scd2-late").to(spec.topics().dlq(), Produced.with(OUT_KEY, Serdes.ByteArray()).withName(LATE_DLQ_SINK));
  }

  /**
   * Streams properties for running {@code spec}: {@code application.id = dimstream-<name>},
   * {@code processing.guarantee = exactly_once_v2}, byte-array default serdes, state under {@code stateDir}, then
   * every entry of {@code kafka} (bootstrap.servers, security settings, overrides) as given.
   */
  public static Properties config(DimensionSpec spec, Map<String, String> kafka, Path stateDir) {
    return config(spec, SizePolicy.of(spec.service()), kafka, stateDir);
  }

  /**
   * As {@link #config(DimensionSpec, Map, Path)}, with the producers' {@code max.request.size} and the internal
   * (repartition, changelog) topics' {@code max.message.bytes} set to {@code sizes.outputLimit()} so that every
   * record the topology writes fits, and the handlers that send a record Kafka Streams cannot process or produce to
   * the dead-letter topic instead of stopping the stream thread.
   */
  public static Properties config(DimensionSpec spec, SizePolicy sizes, Map<String, String> kafka, Path stateDir) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "dimstream-" + spec.name());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toAbsolutePath().toString());
    // The topology has no global stores; opting in now only silences Kafka's warning about the 5.0 default.
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, "true");
    String limit = Integer.toString(sizes.outputLimit());
    p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), limit);
    p.put(StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), limit);
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandlers.Processing.class.getName());
    p.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandlers.Production.class.getName());
    p.put(DeadLetterHandlers.DLQ_TOPIC_CONFIG, spec.topics().dlq());
    p.put(DeadLetterHandlers.OUTPUT_LIMIT_CONFIG, limit);
    // every store of the process, of any dimension, shares one block cache and write buffer budget
    p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, SharedStateMemory.class.getName());
    p.put(SharedStateMemory.BUDGET_CONFIG, Long.toString(spec.service().stateMemory()));
    p.putAll(kafka);
    return p;
  }

  /**
   * The state codec of {@code spec} for a task whose Streams properties are {@code appConfigs}: it reads records of
   * the layouts {@link #STATE_LAYOUTS_CONFIG} lists too.
   *
   * @throws TopologyException when the property does not describe layouts of this spec's attributes
   */
  static StateBinary stateCodec(DimensionSpec spec, Map<String, Object> appConfigs) {
    return new StateBinary(spec, stateLayouts(spec, appConfigs));
  }

  /**
   * The earlier attribute layouts {@link #STATE_LAYOUTS_CONFIG} lists in {@code appConfigs}, checked against
   * {@code spec}: for every store of the application that keeps the dimension's attributes.
   *
   * @throws TopologyException when the property does not describe layouts of this spec's attributes
   */
  public static StateLayouts stateLayouts(DimensionSpec spec, Map<String, Object> appConfigs) {
    Object value = appConfigs.get(STATE_LAYOUTS_CONFIG);
    try {
      StateLayouts layouts = StateLayouts.parse(value == null ? null : value.toString());
      new StateBinary(spec, layouts);
      return layouts;
    } catch (IllegalArgumentException e) {
      throw TopologyErrors.unreadableStateLayouts(spec, value, e.getMessage());
    }
  }

  private static StoreBuilder<KeyValueStore<Bytes, byte[]>> store(String name) {
    return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.Bytes(), Serdes.ByteArray());
  }

  private static final Serde<Envelope> ENVELOPE = Serdes.serdeFrom(
      (Serializer<Envelope>) (topic, e) -> e == null ? null : e.toBytes(),
      (Deserializer<Envelope>) (topic, b) -> b == null ? null : Envelope.fromBytes(b));

  private static final Serde<OutKey> OUT_KEY = Serdes.serdeFrom(
      (Serializer<OutKey>) (topic, k) -> k == null ? null : k.recordKey(),
      (Deserializer<OutKey>) (topic, b) -> new OutKey(null, b));

  /**
   * Frames version values in the Confluent wire format; event records ({@link io.dimstream.model.EventRecords}) go
   * unframed: they are the event store's own bytes, which no registry schema describes.
   */
  private record FramingSerializer(int schemaId) implements org.apache.kafka.common.serialization.Serializer<byte[]> {
    @Override
    public byte[] serialize(String topic, byte[] value) {
      return io.dimstream.codec.WireFraming.frame(schemaId, value);
    }

    @Override
    public byte[] serialize(String topic, org.apache.kafka.common.header.Headers headers, byte[] value) {
      return EventRecordHeaders.isEvent(headers) ? value : serialize(topic, value);
    }
  }
}
