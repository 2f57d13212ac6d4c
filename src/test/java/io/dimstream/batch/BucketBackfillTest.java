package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.storage.LocalStore;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backfill cut by bucket, its pieces run as a distributed job runs them (decoding anywhere, each bucket written by
 * a load of its own, the commit by another), gives the table, dead letters and kept events of one backfill of the
 * same records in the same order.
 */
class BucketBackfillTest {
  private static final Path CUSTOMERS = Path.of("examples/customers.yaml");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void shouldWriteTheTableOfOneBackfillWhenBucketsAreWrittenApart() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(CUSTOMERS);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 34L).keys(1_000).events(12_000)
        .late(0.05).duplicates(0.02).deletes(0.03).noChange(0.1).generate();
    List<String> lines = new ArrayList<>(stream.jsonLines());
    lines.add(3_000, "{\"customer_id\": 7, \"city\": \"Oslo\""); // malformed
    lines.add(6_000, "{\"name\": \"no key\", \"updated_at\": \"2026-03-01T00:00:00Z\", \"op\": \"c\"}");
    lines.add(tooLate(lines.get(lines.size() - 1)));
    // two input files: the first 5,000 lines, then the rest
    List<List<String>> files = List.of(lines.subList(0, 5_000), lines.subList(5_000, lines.size()));

    Path table = dir.resolve("table");
    int buckets = BucketBackfill.create(spec, new LocalStore(table));
    BucketBackfill decoder = new BucketBackfill(spec, new LocalStore(table));
    List<BucketBackfill.Arrived> events = new ArrayList<>();
    List<BucketBackfill.FoldRejection> rejected = new ArrayList<>();
    Map<BucketBackfill.Arrived, Integer> bucketOf = new java.util.IdentityHashMap<>();
    for (int f = 0; f < files.size(); f++) {
      long position = 0;
      for (String line : files.get(f)) {
        byte[] record = line.getBytes(StandardCharsets.UTF_8);
        BucketBackfill.Outcome o = decoder.decode(record, "file " + f);
        if (o instanceof BucketBackfill.Event e) {
          BucketBackfill.Arrived a = new BucketBackfill.Arrived(e.key(), e.event(), record, f, position);
          events.add(a);
          bucketOf.put(a, e.bucket());
        } else if (o instanceof BucketBackfill.Rejected r) {
          rejected.add(new BucketBackfill.FoldRejection(f, position, r.deadLetter()));
        }
        position += record.length + 1;
      }
    }
    // the shuffle: by bucket, then key, then arrival
    events.sort(Comparator.<BucketBackfill.Arrived>comparingInt(bucketOf::get)
        .thenComparing(BucketBackfill.Arrived::key, Arrays::compareUnsigned)
        .thenComparingInt(BucketBackfill.Arrived::file)
        .thenComparingLong(BucketBackfill.Arrived::position));
    String loadId = "load-1";
    List<String> added = new ArrayList<>();
    long versions = 0;
    long kept = 0;
    // two "executors", each with a load of its own, writing every other bucket
    BucketBackfill[] executors = {new BucketBackfill(spec, new LocalStore(table)),
        new BucketBackfill(spec, new LocalStore(table))};
    for (int b = 0; b < buckets; b++) {
      int bucket = b;
      List<BucketBackfill.Arrived> mine = events.stream().filter(a -> bucketOf.get(a) == bucket).toList();
      BucketBackfill.BucketWritten w = executors[b % 2].writeBucket(b, mine.iterator(), loadId, "files");
      added.addAll(w.files());
      versions += w.versions();
      kept += w.keptEvents();
      rejected.addAll(w.rejected());
    }
    long tableVersion = new BucketBackfill(spec, new LocalStore(table)).commit(added, versions, loadId, buckets, kept)
        .version();

    Path one = dir.resolve("one");
    Path dlq = dir.resolve("dlq.jsonl");
    new Backfill(spec).load(BackfillInputs.of(lines), "all.jsonl", dlq, one);

    assertThat(tableVersion).isEqualTo(1);
    List<Version> rows = new ArrayList<>(KernelReader.latest(table, spec));
    rows.sort(BusinessKeys.VERSION_ORDER);
    List<Version> oneRows = new ArrayList<>(KernelReader.latest(one, spec));
    oneRows.sort(BusinessKeys.VERSION_ORDER);
    assertThat(rows).containsExactlyElementsOf(oneRows).containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
    rejected.sort(Comparator.comparingInt(BucketBackfill.FoldRejection::file)
        .thenComparingLong(BucketBackfill.FoldRejection::position));
    assertThat(rejected.stream().map(BucketBackfill.FoldRejection::deadLetter).toList())
        .containsExactlyElementsOf(Files.readAllLines(dlq))
        .hasSize(3);
    assertThat(manifest(table).get("events")).isEqualTo(manifest(one).get("events"));
    assertThat(manifest(table).get("parts")).isEqualTo(buckets);
  }

  private static String tooLate(String line) throws Exception {
    ObjectNode record = (ObjectNode) JSON.readTree(line);
    JsonNode at = record.get("updated_at");
    Instant t = at.isNumber() ? Instant.ofEpochMilli(at.asLong()) : Instant.parse(at.asText());
    record.put("updated_at", t.minus(60, ChronoUnit.DAYS).toString());
    return JSON.writeValueAsString(record);
  }

  private static Map<String, Object> manifest(Path table) throws Exception {
    return new TreeMap<>(JSON.readValue(table.resolve(KeptEvents.MANIFEST).toFile(), Map.class));
  }
}
