package io.dimstream.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.enrich.EnrichmentCounters;
import io.dimstream.enrich.EnrichmentSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** The facts and enriched topics of one enrichment under a {@link DimensionTestDriver}. Not thread-safe. */
public final class EnrichmentDriver {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One enriched record: its key (the fact key as JSON text) and its columns. */
  public record EnrichedRecord(String key, JsonNode row) {
    public long revision(String revisionColumn) {
      return row.get(revisionColumn).asLong();
    }
  }

  private final TestInputTopic<byte[], byte[]> facts;
  private final TestOutputTopic<byte[], byte[]> output;
  private final EnrichmentCounters counters;
  private final List<EnrichedRecord> records = new ArrayList<>();

  EnrichmentDriver(TopologyTestDriver driver, EnrichmentSpec spec, EnrichmentCounters counters) {
    this.facts = driver.createInputTopic(spec.facts().topic(), new ByteArraySerializer(), new ByteArraySerializer());
    this.output = driver.createOutputTopic(spec.outputTopic(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.counters = counters;
  }

  void send(String... values) {
    for (String v : values) {
      facts.pipeInput(v.getBytes(StandardCharsets.UTF_8));
    }
  }

  List<EnrichedRecord> records() {
    for (TestRecord<byte[], byte[]> r : output.readRecordsToList()) {
      try {
        records.add(new EnrichedRecord(new String(r.key(), StandardCharsets.UTF_8), JSON.readTree(r.value())));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return List.copyOf(records);
  }

  Map<String, JsonNode> last() {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    records().forEach(r -> out.put(r.key(), r.row()));
    return out;
  }

  EnrichmentCounters counters() {
    return counters;
  }
}
