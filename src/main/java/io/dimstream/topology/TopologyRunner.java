package io.dimstream.topology;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.codec.VersionJson;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.enrich.streams.EnrichmentTopology;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.model.VersionsById;
import io.dimstream.spec.DimensionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Runs a dimension's real topology ({@link DimensionTopology#build}) under Kafka Streams'
 * {@link TopologyTestDriver}: no broker, no threads, every record processed within {@link #send}. It reads back the
 * versions records the topology emits and applies them as a consumer of the versions topic would (the last record
 * per {@link VersionId} wins; a null value retracts), and collects what it sends to the dead-letter topic.
 *
 * <p>The one harness behind {@code dimstream replay} ({@link #replay}), the public test kit and the topology tests.
 * Wall-clock time only moves when {@link #driver()} is told to, so the pruning punctuator fires only then; the
 * lateness horizon still rejects events that are too old. Not thread-safe; close it to release the state (and
 * delete the state directory when the runner created it).
 */
public final class TopologyRunner implements AutoCloseable {
  /** The wall-clock time the driver starts at unless {@link Builder#startAt} says otherwise. */
  public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");
  private static final int REPLAY_DRAIN_EVERY = 1_000;

  /**
   * One versions-topic record, decoded.
   *
   * @param kind    the kind its {@code dimstream.change} header names
   * @param id      the identity its record key names
   * @param version the version its value holds; null for a retraction
   */
  public record Emitted(ChangeKind kind, VersionId id, Version version) {
    /** The change it stands for, as {@link VersionRecordCodec#decodeChange} gives it. */
    public VersionChange change() {
      return version == null ? new VersionChange.Retraction(id.key(), id.validFrom())
          : new VersionChange.Upsert(version, kind);
    }

    @Override
    public String toString() {
      return kind.wireName() + " " + id;
    }
  }

  /** A record the topology sent to the dead-letter topic: the original key and value, and the reason headers. */
  public record Rejection(byte[] key, byte[] value, String reason, String detail) {
    /** The rejected value as UTF-8 text, or null for a tombstone. */
    public String valueText() {
      return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
  }

  /**
   * The result of a {@link #replay}.
   *
   * @param history  every version, sorted by key then {@code valid_from}
   * @param records  how many records were replayed
   * @param rejected how many of them went to the dead-letter topic
   */
  public record Replay(List<Version> history, long records, long rejected) {}

  private final DimensionSpec spec;
  private final Path stateDir;
  private final boolean ownsStateDir;
  private final TopologyTestDriver driver;
  private final TestInputTopic<byte[], byte[]> changes;
  private final TestOutputTopic<byte[], byte[]> versionsTopic;
  private final TestOutputTopic<byte[], byte[]> dlqTopic;
  private final VersionJson keys;
  private final VersionRecordCodec codec;
  private final VersionsById table = new VersionsById();

  private TopologyRunner(Builder b) {
    this.spec = b.spec;
    this.ownsStateDir = b.stateDir == null;
    this.stateDir = ownsStateDir ? createTempDir() : b.stateDir;
    try {
      StreamsBuilder builder = new StreamsBuilder();
      DimensionTopology.build(builder, spec, b.decoder == null ? ChangeDecoder.forSpec(spec) : b.decoder,
          b.pruneInterval);
      b.addition.accept(builder);
      Map<String, String> kafka = new LinkedHashMap<>();
      kafka.put("bootstrap.servers", "topology-runner:9092");
      // the driver's topics have one partition each; a test may say otherwise to see records as misplaced
      kafka.put(DimensionTopology.CHANGES_PARTITIONS_CONFIG, "1");
      // no broker holds the versions topic: the driver is fed the whole history
      kafka.put(EnrichmentTopology.FILL_VERSIONS_CONFIG, "false");
      kafka.putAll(b.streamsConfig);
      Properties props = DimensionTopology.config(spec, kafka, stateDir);
      driver = new TopologyTestDriver(builder.build(), props, b.start);
    } catch (RuntimeException e) {
      if (ownsStateDir) {
        deleteTree(stateDir);
      }
      throw e;
    }
    // as Kafka's own default: record timestamps start at the clock's now unless told otherwise, which matters for a
    // tombstone (its timestamp can be its sequence)
    Instant firstRecord = b.firstRecord != null ? b.firstRecord : b.clock.instant();
    changes = driver.createInputTopic(spec.topics().changes(), new ByteArraySerializer(), new ByteArraySerializer(),
        firstRecord, b.recordSpacing);
    versionsTopic = driver.createOutputTopic(spec.topics().versions(), new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    dlqTopic = driver.createOutputTopic(spec.topics().dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    keys = new VersionJson(spec);
    codec = VersionRecordCodec.forSpec(spec);
  }

  /** A runner of {@code spec}'s topology with the defaults of {@link Builder}. */
  public static TopologyRunner of(DimensionSpec spec) {
    return builder(spec).build();
  }

  public static Builder builder(DimensionSpec spec) {
    return new Builder(spec);
  }

  /**
   * Replays {@code values} (keyless records; null elements are tombstones) in the given order through a fresh
   * runner with a temporary state directory, and returns the history the emitted records make.
   *
   * @param rejects receives every dead-letter record, in the order the topology rejected them
   * @throws UncheckedIOException when the temporary state directory cannot be created or deleted
   */
  public static Replay replay(DimensionSpec spec, Iterator<byte[]> values, Consumer<Rejection> rejects) {
    long records = 0;
    long rejected = 0;
    // at-least-once: under the test driver it processes exactly the same, without a commit per record;
    // record timestamps one millisecond apart as a producer writing the file would give them
    try (TopologyRunner runner = builder(spec).startAt(Instant.EPOCH)
        .recordTimes(Instant.EPOCH, Duration.ofMillis(1))
        .streamsConfig(Map.of("processing.guarantee", "at_least_once")).build()) {
      while (values.hasNext()) {
        runner.send(null, values.next());
        records++;
        if (records % REPLAY_DRAIN_EVERY == 0) {
          runner.applyEmitted(false);
          rejected += runner.drainRejections(rejects);
        }
      }
      runner.applyEmitted(false);
      rejected += runner.drainRejections(rejects);
      return new Replay(runner.table.sorted(), records, rejected);
    }
  }

  public DimensionSpec spec() {
    return spec;
  }

  /** The underlying driver: to advance wall-clock time (and so fire the pruning punctuator) or read a store. */
  public TopologyTestDriver driver() {
    return driver;
  }

  /** Pipes one changes-topic record (null key: unkeyed; null value: a tombstone). */
  public TopologyRunner send(byte[] key, byte[] value) {
    changes.pipeInput(key, value);
    return this;
  }

  /** Pipes unkeyed changes-topic records given as UTF-8 text (JSON for json/debezium-json specs). */
  public TopologyRunner send(String... values) {
    for (String v : values) {
      changes.pipeInput(null, v.getBytes(StandardCharsets.UTF_8));
    }
    return this;
  }

  /**
   * The versions records emitted since the last call (or since {@link #history()} last read them), in order; they
   * are also applied to {@link #history()}.
   *
   * @throws IllegalStateException when a record's key or {@code dimstream.change} header disagrees with its value
   */
  public List<Emitted> emitted() {
    return applyEmitted(true);
  }

  /** Every version the emitted records describe, sorted by key then {@code valid_from}. */
  public List<Version> history() {
    applyEmitted(false);
    return table.sorted();
  }

  /** The dead-letter records emitted since the last call, in order. */
  public List<Rejection> rejections() {
    List<Rejection> out = new ArrayList<>();
    drainRejections(out::add);
    return out;
  }

  private List<Emitted> applyEmitted(boolean collect) {
    List<Emitted> out = collect ? new ArrayList<>() : List.of();
    for (TestRecord<byte[], byte[]> r : versionsTopic.readRecordsToList()) {
      if (EventRecordHeaders.isEvent(r.headers())) {
        continue; // the event store's writes, which the compactor keeps beside the table: not versions
      }
      Emitted e = decode(r);
      table.apply(e.change());
      if (collect) {
        out.add(e);
      }
    }
    return out;
  }

  private Emitted decode(TestRecord<byte[], byte[]> r) {
    VersionId id = keys.decodeKey(r.key());
    String header = header(r, DimensionTopology.CHANGE_HEADER);
    if (header == null) {
      throw new IllegalStateException("versions record " + id + " has no " + DimensionTopology.CHANGE_HEADER
          + " header");
    }
    ChangeKind kind = ChangeKind.fromWire(header);
    if (r.value() == null) {
      return new Emitted(kind, id, null);
    }
    VersionChange c = codec.decodeChange(r.key(), r.value());
    if (!(c instanceof VersionChange.Upsert u) || u.kind() != kind || !u.version().id().equals(id)) {
      throw new IllegalStateException("versions record " + id + " (" + header + ") disagrees with its value " + c);
    }
    return new Emitted(kind, id, u.version());
  }

  private long drainRejections(Consumer<Rejection> sink) {
    long n = 0;
    for (TestRecord<byte[], byte[]> r : dlqTopic.readRecordsToList()) {
      sink.accept(new Rejection(r.key(), r.value(), header(r, DimensionTopology.ERROR_HEADER),
          header(r, DimensionTopology.ERROR_DETAIL_HEADER)));
      n++;
    }
    return n;
  }

  private static String header(TestRecord<?, ?> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /**
   * Closes the driver and, when the runner created the state directory, deletes it.
   *
   * @throws UncheckedIOException when the runner's temporary state directory cannot be deleted
   */
  @Override
  public void close() {
    try {
      driver.close();
    } finally {
      if (ownsStateDir) {
        deleteTree(stateDir);
      }
    }
  }

  private static Path createTempDir() {
    try {
      return Files.createTempDirectory("dimstream-topology-");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a temporary state directory for the topology", e);
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the topology's temporary state directory " + dir, e);
    }
  }

  /** Options of a {@link TopologyRunner}; every one has a default. */
  public static final class Builder {
    private final DimensionSpec spec;
    private Path stateDir;
    private ChangeDecoder decoder;
    private Duration pruneInterval = DimensionTopology.DEFAULT_PRUNE_INTERVAL;
    private Map<String, String> streamsConfig = Map.of();
    private Instant start = DEFAULT_START;
    private Clock clock = Clock.systemUTC();
    private Instant firstRecord;
    private Duration recordSpacing = Duration.ZERO;
    private java.util.function.Consumer<StreamsBuilder> addition = builder -> { };

    private Builder(DimensionSpec spec) {
      this.spec = Objects.requireNonNull(spec, "spec");
    }

    /** Keep state here (not deleted on close); default: a temporary directory deleted on close. */
    public Builder stateDir(Path dir) {
      this.stateDir = dir;
      return this;
    }

    /** Decode change records with this decoder; default: {@link ChangeDecoder#forSpec}. */
    public Builder decoder(ChangeDecoder decoder) {
      this.decoder = decoder;
      return this;
    }

    /** How often (in wall-clock time) the punctuator starts a pass pruning events past the horizon; default 60 s. */
    public Builder pruneInterval(Duration interval) {
      this.pruneInterval = interval;
      return this;
    }

    /** Streams properties on top of {@link DimensionTopology#config}. */
    public Builder streamsConfig(Map<String, String> config) {
      this.streamsConfig = Map.copyOf(config);
      return this;
    }

    /** The driver's initial wall-clock time (the punctuator's clock); default {@link #DEFAULT_START}. */
    public Builder startAt(Instant start) {
      this.start = start;
      return this;
    }

    /** The clock whose now is the first record's timestamp when {@link #recordTimes} is not given. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The timestamp of the first piped record, and how far each next one advances; default: the clock's now at
     * {@link #build()}, and zero.
     */
    public Builder recordTimes(Instant first, Duration spacing) {
      this.firstRecord = Objects.requireNonNull(first, "first");
      this.recordSpacing = Objects.requireNonNull(spacing, "spacing");
      return this;
    }

    /** Adds more to the topology after the dimension's own (the enrichments of the dimension, for instance). */
    public Builder addition(java.util.function.Consumer<StreamsBuilder> addition) {
      this.addition = Objects.requireNonNull(addition, "addition");
      return this;
    }

    public TopologyRunner build() {
      return new TopologyRunner(this);
    }
  }
}
