package io.dimstream.service;

import io.dimstream.compactor.Compactor;
import io.dimstream.table.Operation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.batch.Backfill;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table a spec's {@code output.table_properties} asks for, created by backfill's bulk load and by the service's
 * table sink, as a reader sees it: the protocol and properties in the log, the rows Delta Kernel returns.
 */
class TablePropertiesFromSpecTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int EVENTS = 2_000;
  private static final int LATER = 400;

  @TempDir
  Path dir;

  @Test
  void shouldBackfillACopyOnWriteTableKernelReadsAndKeepLaterCommitsFreeOfDeletionVectors() throws Exception {
    DimensionSpec spec = spec(
        "output: {table_properties: {delta.enableDeletionVectors: false, dimstream.buckets: 4}}\n");
    Path table = dir.resolve("table");
    ChangeStreams.GeneratedStream stream = stream(spec);

    Backfill.Loaded loaded = new Backfill(spec).load(inputs(stream.jsonLines().subList(0, EVENTS - LATER)),
        "changes.jsonl", null, table);

    assertThat(loaded.rejected()).isZero();
    assertThat(protocol(table)).isEqualTo(List.of(1, 2));
    assertThat(configuration(table).path("delta.enableDeletionVectors").asText()).isEqualTo("false");
    assertThat(configuration(table).path("dimstream.buckets").asText()).isEqualTo("4");
    assertThat(kernelRows(table, spec)).containsExactlyElementsOf(fold(spec, stream.events().subList(0, EVENTS - LATER)));

    commitTheRestAsTheCompactorWould(spec, table, stream.events());

    assertThat(protocol(table)).as("still copy-on-write").isEqualTo(List.of(1, 2));
    assertThat(adds(table)).hasSizeGreaterThan(1).noneMatch(a -> a.has("deletionVector") && !a.get("deletionVector")
        .isNull());
    assertThat(Files.list(table).map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("deletion_vector"));
    assertThat(kernelRows(table, spec)).containsExactlyElementsOf(fold(spec, stream.events()));
  }

  @Test
  void shouldStillBackfillAMergeOnReadTableWithDeletionVectorsByDefault() throws Exception {
    DimensionSpec spec = spec("");
    Path table = dir.resolve("table");
    ChangeStreams.GeneratedStream stream = stream(spec);

    new Backfill(spec).load(inputs(stream.jsonLines().subList(0, EVENTS - LATER)), "changes.jsonl", null, table);
    commitTheRestAsTheCompactorWould(spec, table, stream.events());

    assertThat(protocol(table)).isEqualTo(List.of(3, 7));
    assertThat(configuration(table).path("delta.enableDeletionVectors").asText()).isEqualTo("true");
    assertThat(adds(table)).anyMatch(a -> a.has("deletionVector") && !a.get("deletionVector").isNull());
    assertThat(kernelRows(table, spec)).containsExactlyElementsOf(fold(spec, stream.events()));
  }

  @Test
  void shouldCreateTheServicesTableWithTheSpecsProperties() throws Exception {
    DimensionSpec spec = spec("output:\n  table_properties:\n    delta.enableDeletionVectors: \"false\"\n"
        + "    dimstream.compaction.rowsPerCycle: 1000\n");

    Compactor.openTable(spec);

    Path table = spec.service().tablePath().localPath();
    assertThat(protocol(table)).isEqualTo(List.of(1, 2));
    assertThat(configuration(table).path("delta.enableDeletionVectors").asText()).isEqualTo("false");
    assertThat(configuration(table).path("dimstream.compaction.rowsPerCycle").asText()).isEqualTo("1000");
  }

  /** The customers example with {@code extra} appended and the table under the test's directory. */
  private DimensionSpec spec(String extra) throws IOException {
    Path file = dir.resolve("customers.yaml");
    Files.writeString(file, Files.readString(Path.of("examples/customers.yaml")) + extra);
    DimensionSpec spec = DimensionSpecLoader.load(file);
    return spec.withService(spec.service().withTablePath(dir.resolve("table")));
  }

  private static ChangeStreams.GeneratedStream stream(DimensionSpec spec) {
    ChangeStreams.GeneratedStream s = ChangeStreams.random(spec, 12L).keys(150).events(EVENTS)
        .late(0.1).duplicates(0.02).noChange(0.1).deletes(0.05).generate();
    assertThat(s.jsonLines()).hasSize(s.events().size()).hasSize(EVENTS);
    return s;
  }

  private static List<Version> fold(DimensionSpec spec, List<ChangeEvent> events) {
    List<Version> v = new ArrayList<>(Scd2Fold.fold(spec, events));
    v.sort(BusinessKeys.VERSION_ORDER);
    return v;
  }

  /**
   * Commits, through the service's table sink, what the topology emits for the later events: each version of the
   * full history that is new or changed as an upsert, each earlier version that vanished as a retraction.
   */
  private static void commitTheRestAsTheCompactorWould(DimensionSpec spec, Path table, List<ChangeEvent> all) {
    Map<VersionId, Version> before = new LinkedHashMap<>();
    fold(spec, all.subList(0, EVENTS - LATER)).forEach(v -> before.put(v.id(), v));
    List<VersionChange> changes = new ArrayList<>();
    for (Version v : fold(spec, all)) {
      Version old = before.remove(v.id());
      if (!v.equals(old)) {
        changes.add(new VersionChange.Upsert(v, old == null ? ChangeKind.OPEN
            : old.isCurrent() && !v.isCurrent() && old.attributes().equals(v.attributes()) ? ChangeKind.CLOSE
            : ChangeKind.CORRECT));
      }
    }
    before.values().forEach(v -> changes.add(new VersionChange.Retraction(v.key(), v.validFrom())));
    assertThat(changes).isNotEmpty();
    Compactor.openTable(spec).newCommit(Operation.MERGE).apply(changes);
  }

  private static List<Version> kernelRows(Path table, DimensionSpec spec) {
    List<Version> rows = new ArrayList<>(KernelReader.latest(table, spec));
    rows.sort(BusinessKeys.VERSION_ORDER);
    return rows;
  }

  private static Iterator<Backfill.Input> inputs(List<String> lines) {
    List<Backfill.Input> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      out.add(new Backfill.Input(i + 1, lines.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    return out.iterator();
  }

  /** Every action of every commit file, in log order. */
  private static List<JsonNode> actions(Path table) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        for (String line : Files.readAllLines(f)) {
          if (!line.isBlank()) {
            out.add(JSON.readTree(line));
          }
        }
      }
    }
    return out;
  }

  /** The newest protocol action, as [minReaderVersion, minWriterVersion]. */
  private static List<Integer> protocol(Path table) throws IOException {
    JsonNode p = actions(table).stream().filter(a -> a.has("protocol")).reduce((a, b) -> b).orElseThrow()
        .get("protocol");
    return List.of(p.get("minReaderVersion").asInt(), p.get("minWriterVersion").asInt());
  }

  private static JsonNode configuration(Path table) throws IOException {
    return actions(table).stream().filter(a -> a.has("metaData")).reduce((a, b) -> b).orElseThrow()
        .get("metaData").get("configuration");
  }

  private static List<JsonNode> adds(Path table) throws IOException {
    return actions(table).stream().filter(a -> a.has("add")).map(a -> a.get("add")).toList();
  }
}
