package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.change.RejectReason;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.CommitResult;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackfillTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BROKEN_JSON = "{\"customer_id\": 7, \"city\": \"Oslo\"";
  private static final String MISSING_KEY = "{\"city\": \"Oslo\", \"updated_at\": \"2026-01-02T00:00:00Z\"}";

  @TempDir
  Path dir;

  @Test
  void shouldBuildTheReferenceHistoryAndWriteItAsOneCommitKernelReads() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 8L).keys(200).events(3_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Backfill backfill = new Backfill(spec);

    Backfill.Result r = backfill.build(inputs(stream.jsonLines()), "changes.jsonl", null);
    CommitResult c = backfill.write(r, dir.resolve("table"));

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertThat(r.versions()).containsExactlyElementsOf(expected);
    assertThat(r.read()).isEqualTo(3_000);
    assertThat(r.rejected()).isZero();
    assertThat(c.version()).isEqualTo(1); // 0 creates the table
    List<Version> kernel = new ArrayList<>(KernelReader.latest(dir.resolve("table"), spec));
    kernel.sort(io.dimstream.model.BusinessKeys.VERSION_ORDER);
    assertThat(kernel).containsExactlyElementsOf(expected);
  }

  @Test
  void shouldWriteEachRejectedRecordUnchangedWithItsReasonToTheDeadLetterFile() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    List<String> lines = List.of(
        customer(1, "Paris", "2026-01-01T00:00:00Z"),
        BROKEN_JSON,
        customer(1, "Nice", "2026-01-05T00:00:00Z"),
        MISSING_KEY);
    Path dlq = dir.resolve("dlq.jsonl");

    Backfill.Result r = new Backfill(spec).build(inputs(lines), "changes.jsonl", dlq);

    assertThat(r.read()).isEqualTo(4);
    assertThat(r.rejected()).isEqualTo(2);
    assertThat(r.versions()).extracting(v -> city(spec, v)).containsExactly("Paris", "Nice");
    List<JsonNode> dead = deadLetters(dlq);
    assertThat(dead).extracting(n -> n.get("reason").asText())
        .containsExactly(RejectReason.MALFORMED_JSON, RejectReason.MISSING_KEY);
    assertThat(dead).extracting(n -> n.get("record").asText()).containsExactly(BROKEN_JSON, MISSING_KEY);
    assertThat(dead).allSatisfy(n -> assertThat(n.get("detail").asText()).isNotBlank());
  }

  @Test
  void shouldRejectAnEventBeyondTheLatenessHorizonAsTheTopologyDoes() throws Exception {
    Path yaml = dir.resolve("customers.yaml");
    Files.writeString(yaml, Files.readString(Path.of("examples/customers.yaml")) + "lateness_horizon: 2d\n");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    String tooLate = customer(1, "Lyon", "2026-01-01T00:00:00Z");
    Path dlq = dir.resolve("dlq.jsonl");

    Backfill.Result r = new Backfill(spec).build(inputs(List.of(
        customer(1, "Paris", "2026-01-10T00:00:00Z"),
        tooLate,
        customer(1, "Nice", "2026-01-09T00:00:00Z"))), "changes.jsonl", dlq);

    // The late event within the horizon is spliced in; the one 9 days behind is not applied.
    assertThat(r.versions()).extracting(v -> city(spec, v)).containsExactly("Nice", "Paris");
    JsonNode dead = deadLetters(dlq).get(0);
    assertThat(dead.get("reason").asText()).isEqualTo(RejectReason.BEYOND_LATENESS_HORIZON);
    assertThat(dead.get("record").asText()).isEqualTo(tooLate);
    assertThat(dead.get("detail").asText()).contains("raise lateness_horizon to accept it");
  }

  @Test
  void shouldStopWithAFixWhenARejectedRecordIsGoneFromTheFileWhenReadAgain() throws Exception {
    Path yaml = dir.resolve("customers.yaml");
    Files.writeString(yaml, Files.readString(Path.of("examples/customers.yaml")) + "lateness_horizon: 2d\n");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    Path dlq = dir.resolve("dlq.jsonl");
    List<String> lines = List.of(customer(1, "Paris", "2026-01-10T00:00:00Z"),
        customer(1, "Lyon", "2026-01-01T00:00:00Z")); // too late: the fold's dead letter, its record read again

    // the file's path reads a too-late record again by its line; here the file no longer holds it
    assertThatThrownBy(() -> new Backfill(spec).run(ParallelDecode.batches(inputs(lines)), "changes.jsonl", dlq, 4,
        key -> 0, (shard, rows) -> { }, Long.MAX_VALUE, () -> -1, (n, bytes) -> { }, wanted -> Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("line 2 holds no record any more")
        .hasMessageContaining("Fix: backfill from a file nothing writes to");
  }

  private static Object city(DimensionSpec spec, Version v) {
    List<String> names = spec.attributeColumns().stream().map(c -> c.name()).toList();
    return v.attributes().get(names.indexOf("city"));
  }

  private static String customer(long id, String city, String updatedAt) {
    return "{\"customer_id\": " + id + ", \"name\": \"C" + id + "\", \"email\": \"c" + id + "@example.com\", "
        + "\"city\": \"" + city + "\", \"tier\": \"gold\", \"updated_at\": \"" + updatedAt + "\", \"op\": \"u\"}";
  }

  private static Iterator<Backfill.Input> inputs(List<String> lines) {
    List<Backfill.Input> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      out.add(new Backfill.Input(i + 1, lines.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    return out.iterator();
  }

  private static List<JsonNode> deadLetters(Path file) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      out.add(JSON.readTree(line));
    }
    return out;
  }
}
