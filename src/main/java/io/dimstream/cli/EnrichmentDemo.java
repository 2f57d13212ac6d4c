package io.dimstream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentCounters;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.TableHistory;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.TopicReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** The enrichment part of {@code dimstream demo --enrich}: waits for the enriched topic to settle and summarises it. */
final class EnrichmentDemo {
  private static final ObjectMapper JSON = new ObjectMapper();

  private EnrichmentDemo() {}

  /**
   * Waits until every fact of {@code factsFile} has a record on the output topic (read_committed); false when not
   * within {@code timeout}.
   */
  static boolean awaitFirstRecords(DimensionService service, EnrichmentSpec spec, Path factsFile, Duration timeout)
      throws Exception {
    java.util.Set<String> factKeys = BatchEnrichment.join(spec, EnrichCommand.readFacts(spec, factsFile),
        java.util.List.of()).keySet();
    return CatchUp.await(() -> {
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(service.kafka(), spec.outputTopic(), true).kept()) {
        seen.add(new String(r.key(), StandardCharsets.UTF_8));
      }
      return seen.containsAll(factKeys);
    }, timeout);
  }

  /**
   * Waits until the last record per fact key on the output topic equals the batch join of the facts with the table
   * (which must have caught up), then prints a summary; false when it did not within {@code timeout}.
   */
  static boolean awaitAndPrint(PrintStream out, DimensionService service, EnrichmentSpec spec, Path factsFile,
      Duration timeout) throws Exception {
    EnrichedRows rows = new EnrichedRows(spec);
    Map<String, String> expected = new HashMap<>();
    BatchEnrichment.join(spec, EnrichCommand.readFacts(spec, factsFile),
            TableHistory.versions(service.table(), spec))
        .forEach((k, e) -> expected.put(k, withoutRevision(spec, rows.row(e))));
    Map<String, String> last = new HashMap<>();
    long[] records = new long[1];
    String[] sample = new String[1];
    boolean settled = CatchUp.await(() -> {
      last.clear();
      records[0] = 0;
      for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(service.kafka(), spec.outputTopic(), true).kept()) {
        ObjectNode row = (ObjectNode) read(r.value());
        last.put(new String(r.key(), StandardCharsets.UTF_8), withoutRevision(spec, row));
        records[0]++;
        if (row.get(spec.revisionColumn()).asLong() > 1) {
          sample[0] = row.toString();
        }
      }
      return last.equals(expected);
    }, timeout);
    EnrichmentCounters c = service.enrichmentCounters().get(spec.name());
    long found = expected.values().stream().filter(v -> read(v.getBytes(StandardCharsets.UTF_8))
        .get(spec.foundColumn()).asBoolean()).count();
    out.println();
    out.println("enrichment: " + spec.name() + " (" + spec.facts().topic() + " as of " + spec.facts().time()
        + " -> " + spec.outputTopic() + ")");
    out.printf("  facts                   %,d%n", expected.size());
    out.printf("  enriched records        %,d%n", records[0]);
    out.printf("  corrections             %,d%n", c.corrected());
    out.printf("  facts with a version    %,d%n", found);
    out.printf("  equal to the batch join %s%n", settled ? "yes" : "not yet");
    if (sample[0] != null) {
      out.println("  a corrected record: " + sample[0]);
    }
    out.printf("  ./dimstream enrich --config %s --table %s --facts %s%n", spec.source(),
        service.spec().service().tablePath(), factsFile);
    return settled;
  }

  private static String withoutRevision(EnrichmentSpec spec, ObjectNode row) {
    ObjectNode copy = row.deepCopy();
    copy.remove(spec.revisionColumn());
    return copy.toString();
  }

  private static JsonNode read(byte[] value) {
    try {
      return JSON.readTree(value);
    } catch (IOException e) {
      throw new IllegalStateException("an enriched record is not JSON: " + e.getMessage(), e);
    }
  }
}
