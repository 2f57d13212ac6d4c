package io.dimstream.topology;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.codec.VersionJson;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.config.DimensionSpec;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.model.VersionsById;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** Runs a dimension's topology under TopologyTestDriver and reads back what it emitted. */
final class TopologyHarness implements AutoCloseable {
  /** One versions-topic record, decoded: {@code version} is null for a retraction. */
  record Emitted(ChangeKind kind, VersionId id, Version version) {
    @Override
    public String toString() {
      return kind.wireName() + " " + id.key() + "@" + id.validFrom();
    }
  }

  /** One DLQ record. */
  record Dead(byte[] key, String value, String reason, String detail) {}

  final DimensionSpec spec;
  final TopologyTestDriver driver;
  private final TestInputTopic<byte[], byte[]> changes;
  private final TestOutputTopic<byte[], byte[]> versions;
  private final TestOutputTopic<byte[], byte[]> dlq;
  private final VersionJson json;
  /** Decodes record values in the spec's versions_format. */
  private final VersionRecordCodec codec;
  /** Every version as the emitted records say, by identity: the table a consumer of the topic would hold. */
  private final VersionsById table = new VersionsById();

  TopologyHarness(DimensionSpec spec, Path stateDir) {
    this(spec, stateDir, ChangeDecoder.forSpec(spec));
  }

  TopologyHarness(DimensionSpec spec, Path stateDir, ChangeDecoder decoder) {
    this(spec, stateDir, decoder, Map.of());
  }

  /** @param overrides Streams properties on top of {@link DimensionTopology#config} */
  TopologyHarness(DimensionSpec spec, Path stateDir, ChangeDecoder decoder, Map<String, String> overrides) {
    this.spec = spec;
    StreamsBuilder builder = new StreamsBuilder();
    DimensionTopology.build(builder, spec, decoder, Duration.ofSeconds(60));
    Map<String, String> kafka = new LinkedHashMap<>(Map.of("bootstrap.servers", "unused:9092"));
    kafka.putAll(overrides);
    Properties props = DimensionTopology.config(spec, kafka, stateDir);
    driver = new TopologyTestDriver(builder.build(), props, Instant.parse("2026-01-01T00:00:00Z"));
    changes = driver.createInputTopic(spec.topics().changes(), new ByteArraySerializer(), new ByteArraySerializer());
    versions = driver.createOutputTopic(spec.topics().versions(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    dlq = driver.createOutputTopic(spec.topics().dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    json = new VersionJson(spec);
    codec = VersionRecordCodec.forSpec(spec);
  }

  void send(String... values) {
    for (String v : values) {
      changes.pipeInput(null, v.getBytes(StandardCharsets.UTF_8));
    }
  }

  void sendKeyed(String key, String value) {
    changes.pipeInput(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
  }

  /** The versions records emitted since the last call, in order; also applied to {@link #history()}. */
  List<Emitted> emitted() {
    List<Emitted> out = new ArrayList<>();
    for (TestRecord<byte[], byte[]> r : versions.readRecordsToList()) {
      VersionId id = json.decodeKey(r.key());
      Header h = r.headers().lastHeader(DimensionTopology.CHANGE_HEADER);
      ChangeKind headerKind = ChangeKind.fromWire(new String(h.value(), StandardCharsets.UTF_8));
      if (r.value() == null) {
        out.add(new Emitted(headerKind, id, null));
        table.apply(new VersionChange.Retraction(id.key(), id.validFrom()));
      } else {
        VersionChange.Upsert row = (VersionChange.Upsert) codec.decodeChange(r.key(), r.value());
        if (row.kind() != headerKind || !row.version().id().equals(id)) {
          throw new AssertionError("record key/header disagree with value: " + r);
        }
        out.add(new Emitted(row.kind(), id, row.version()));
        table.apply(row);
      }
    }
    return out;
  }

  /** The history the emitted records describe, sorted by key then valid_from. */
  List<Version> history() {
    emitted();
    return table.sorted();
  }

  List<Dead> dead() {
    List<Dead> out = new ArrayList<>();
    for (TestRecord<byte[], byte[]> r : dlq.readRecordsToList()) {
      out.add(new Dead(r.key(), r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8),
          header(r, DimensionTopology.ERROR_HEADER), header(r, DimensionTopology.ERROR_DETAIL_HEADER)));
    }
    return out;
  }

  private static String header(TestRecord<?, ?> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    driver.close();
  }
}
