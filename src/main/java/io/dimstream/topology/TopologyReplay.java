package io.dimstream.topology;

import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.config.DimensionSpec;
import io.dimstream.model.Version;
import io.dimstream.model.VersionsById;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Runs a dimension's real topology under {@link TopologyTestDriver} (no broker) over a sequence of changes-topic
 * record values, in the given order, and rebuilds the history by applying the versions records it emits (the last
 * record per version identity wins; a null value deletes). State lives in a temporary directory, deleted afterwards.
 * The pruning punctuator never fires (no wall-clock time passes), so nothing is forgotten; the lateness horizon
 * still rejects events that are too old.
 */
public final class TopologyReplay {
  private static final int DRAIN_EVERY = 1_000;

  /** A record the topology sent to the DLQ: its original value and the reason headers. */
  public record Rejected(byte[] value, String reason, String detail) {}

  /**
   * The result of a replay.
   *
   * @param history  every version, sorted by key then {@code valid_from}
   * @param records  how many records were replayed
   * @param rejected how many of them went to the DLQ
   */
  public record Result(List<Version> history, long records, long rejected) {}

  private TopologyReplay() {}

  /**
   * Replays {@code values} (keyless records; null elements are tombstones).
   *
   * @param rejects receives every DLQ record, in the order the topology rejected them
   * @throws UncheckedIOException when the temporary state directory cannot be created or deleted
   */
  public static Result run(DimensionSpec spec, Iterator<byte[]> values, Consumer<Rejected> rejects) {
    Path stateDir;
    try {
      stateDir = Files.createTempDirectory("dimstream-replay-");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a temporary state directory for the replay", e);
    }
    try {
      return replay(spec, values, rejects, stateDir);
    } finally {
      deleteTree(stateDir);
    }
  }

  private static Result replay(DimensionSpec spec, Iterator<byte[]> values, Consumer<Rejected> rejects, Path stateDir) {
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, spec);
    // at-least-once: under the test driver it processes exactly the same, without a commit per record
    Properties props = DimensionTopology.config(spec,
        Map.of("bootstrap.servers", "replay:9092", "processing.guarantee", "at_least_once"), stateDir);
    VersionRecordCodec codec = VersionRecordCodec.forSpec(spec);
    VersionsById table = new VersionsById();
    long records = 0;
    long rejected = 0;
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props, Instant.EPOCH)) {
      TestInputTopic<byte[], byte[]> in = driver.createInputTopic(spec.topics().changes(), new ByteArraySerializer(),
          new ByteArraySerializer(), Instant.EPOCH, Duration.ofMillis(1));
      TestOutputTopic<byte[], byte[]> versions = driver.createOutputTopic(spec.topics().versions(),
          new ByteArrayDeserializer(), new ByteArrayDeserializer());
      TestOutputTopic<byte[], byte[]> dlq = driver.createOutputTopic(spec.topics().dlq(), new ByteArrayDeserializer(),
          new ByteArrayDeserializer());
      while (values.hasNext()) {
        in.pipeInput((byte[]) null, values.next());
        records++;
        if (records % DRAIN_EVERY == 0) {
          apply(codec, versions, table);
          rejected += drain(dlq, rejects);
        }
      }
      apply(codec, versions, table);
      rejected += drain(dlq, rejects);
    }
    return new Result(table.sorted(), records, rejected);
  }

  private static void apply(VersionRecordCodec codec, TestOutputTopic<byte[], byte[]> versions,
      VersionsById table) {
    for (KeyValue<byte[], byte[]> kv : versions.readKeyValuesToList()) {
      table.apply(codec.decodeChange(kv.key, kv.value));
    }
  }

  private static long drain(TestOutputTopic<byte[], byte[]> dlq, Consumer<Rejected> rejects) {
    long n = 0;
    for (TestRecord<byte[], byte[]> r : dlq.readRecordsToList()) {
      rejects.accept(new Rejected(r.value(), header(r, DimensionTopology.ERROR_HEADER),
          header(r, DimensionTopology.ERROR_DETAIL_HEADER)));
      n++;
    }
    return n;
  }

  private static String header(TestRecord<?, ?> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
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
      throw new UncheckedIOException("Cannot delete the replay's temporary state directory " + dir, e);
    }
  }
}
