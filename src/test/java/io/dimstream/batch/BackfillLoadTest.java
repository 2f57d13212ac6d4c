package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.change.RejectReason;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;

import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.table.TableException;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.table.Operation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackfillLoadTest {
  private static final Path CUSTOMERS = Path.of("examples/customers.yaml");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void shouldWriteTheReferenceHistoryBucketByBucketInOneCommitKernelReads() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(CUSTOMERS);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 21L).keys(2_000).events(30_000)
        .late(0.05).duplicates(0.02).deletes(0.01).noChange(0.05).generate();
    Path table = dir.resolve("table");

    Backfill.Loaded r = new Backfill(spec).load(BackfillInputs.of(stream.jsonLines()), "changes.jsonl", null, table);

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertThat(r.read()).isEqualTo(30_000);
    assertThat(r.versions()).isEqualTo(expected.size());
    assertThat(r.commit().version()).isEqualTo(1); // 0 creates the table
    List<Version> kernel = new ArrayList<>(KernelReader.latest(table, spec));
    kernel.sort(BusinessKeys.VERSION_ORDER);
    assertThat(kernel).containsExactlyElementsOf(expected);
    // one current file per bucket, as the commit planner expects of a table it updates later
    assertThat(DeltaTable.open(table).latest().current().count())
        .isEqualTo(expected.stream().filter(Version::isCurrent).count());
  }

  @Test
  void shouldLoadAJsonLinesFileWithCrLfBlankLinesAndNoLastLineEndAsItsRecordsOneByOne() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(CUSTOMERS);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 23L).keys(3_000).events(30_000)
        .late(0.05).duplicates(0.02).deletes(0.01).noChange(0.05).generate();
    List<String> lines = new ArrayList<>(stream.jsonLines());
    lines.add(10_000, "{\"customer_id\": 7, \"city\": \"Oslo\""); // broken: a dead letter with its line
    lines.add(20_000, "   "); // blank: counted in the line numbers, not a record
    // CRLF line ends and no line end after the last record; 3.5 MB, so records cross the 1 MiB block edges
    Path file = dir.resolve("changes.jsonl");
    Files.writeString(file, String.join("\r\n", lines), StandardCharsets.UTF_8);
    List<String> records = new ArrayList<>(lines);
    records.set(20_000, null);
    List<Backfill.Input> inputs = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      if (records.get(i) != null) {
        inputs.add(new Backfill.Input(i + 1, records.get(i).getBytes(StandardCharsets.UTF_8)));
      }
    }

    long[] progress = {0, 0};
    AtomicLong groups = new AtomicLong(-1);
    AtomicLong folded = new AtomicLong();
    AtomicLong foldedVersions = new AtomicLong();
    Backfill.Loaded blocks = new Backfill(spec).loadJsonLines(file, dir.resolve("dlq-blocks.jsonl"),
        dir.resolve("blocks"), new Backfill.ProgressListener() {
          @Override
          public void read(long n, long bytes) {
            assertThat(groups.get()).as("every record is read before the fold starts").isEqualTo(-1);
            progress[0] += n;
            progress[1] = bytes;
          }

          @Override
          public void folding(int g) {
            groups.set(g);
          }

          @Override
          public void folded(long versions) {
            folded.incrementAndGet();
            foldedVersions.addAndGet(versions);
          }
        });
    Backfill.Loaded oneByOne = new Backfill(spec).load(inputs.iterator(), file.toString(),
        dir.resolve("dlq-records.jsonl"), dir.resolve("records"));

    assertThat(blocks.read()).isEqualTo(30_001).isEqualTo(progress[0]);
    assertThat(progress[1]).as("bytes read when the last block was told").isEqualTo(Files.size(file));
    assertThat(folded.get()).as("each group of keys told once as folded").isEqualTo(groups.get()).isPositive();
    assertThat(foldedVersions.get()).isEqualTo(blocks.versions());
    assertThat(blocks.rejected()).isEqualTo(oneByOne.rejected()).isEqualTo(1);
    assertThat(Files.readAllLines(dir.resolve("dlq-blocks.jsonl")))
        .containsExactlyElementsOf(Files.readAllLines(dir.resolve("dlq-records.jsonl")));
    List<Version> kernel = new ArrayList<>(KernelReader.latest(dir.resolve("blocks"), spec));
    kernel.sort(BusinessKeys.VERSION_ORDER);
    assertThat(kernel).containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
  }

  @Test
  void shouldWriteTheFoldsDeadLettersOfAFileWithTheirRecordsReadAgainFromTheFile() throws Exception {
    Path yaml = dir.resolve("customers.yaml");
    Files.writeString(yaml, Files.readString(CUSTOMERS) + "lateness_horizon: 6h\n");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    List<String> lines = new ArrayList<>(ChangeStreams.random(DimensionSpecLoader.load(CUSTOMERS), 24L).keys(300)
        .events(40_000).late(0.05).duplicates(0.02).deletes(0.01).noChange(0.05).generate().jsonLines());
    lines.add(15_000, "{\"customer_id\": 7, \"city\": \"Oslo\""); // a decode dead letter among the fold's
    Path file = dir.resolve("changes.jsonl");
    Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);

    // the file's path holds no record beside its event and reads the too-late ones again; load() holds them all
    Backfill.Loaded fromFile = new Backfill(spec).loadJsonLines(file, dir.resolve("dlq-file.jsonl"),
        dir.resolve("file"), (n, bytes) -> { });
    Backfill.Loaded held = new Backfill(spec).load(BackfillInputs.of(lines), file.toString(),
        dir.resolve("dlq-held.jsonl"), dir.resolve("held"));

    List<String> dead = Files.readAllLines(dir.resolve("dlq-file.jsonl"));
    assertThat(dead).containsExactlyElementsOf(Files.readAllLines(dir.resolve("dlq-held.jsonl")));
    assertThat(dead.stream().filter(d -> d.contains(RejectReason.BEYOND_LATENESS_HORIZON)).count())
        .as("too-late events, which only the fold rejects").isGreaterThan(10);
    // each dead letter carries its line's exact record
    for (String d : dead) {
      JsonNode n = JSON.readTree(d);
      assertThat(lines).contains(n.get("record").asText());
    }
    assertThat(fromFile.rejected()).isEqualTo(held.rejected()).isEqualTo(dead.size());
    assertThat(fromFile.versions()).isEqualTo(held.versions());
  }

  @Test
  void shouldKeepUpdatingABackfilledTableThroughTheNormalCommitPath() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(CUSTOMERS);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 22L).keys(500).events(6_000).generate();
    List<String> first = stream.jsonLines().subList(0, 5_000);
    Path table = dir.resolve("table");
    new Backfill(spec).load(BackfillInputs.of(first), "changes.jsonl", null, table);

    // the rest through the streaming path's engine, committed as the compactor commits
    Backfill.Result all = new Backfill(spec).build(BackfillInputs.of(stream.jsonLines()), "changes.jsonl", null);
    Backfill.Result head = new Backfill(spec).build(BackfillInputs.of(first), "changes.jsonl", null);
    List<VersionChange> changes = new ArrayList<>();
    VersionsById before = new VersionsById();
    head.versions().forEach(before::put);
    for (Version v : all.versions()) {
      if (!before.get(v.id()).map(v::equals).orElse(false)) {
        changes.add(new VersionChange.Upsert(v, ChangeKind.CORRECT));
      }
      before.remove(v.id());
    }
    before.ids().forEach(id -> changes.add(new VersionChange.Retraction(id.key(), id.validFrom())));
    DeltaTable.open(table).newCommit(Operation.MERGE).apply(changes);

    List<Version> kernel = new ArrayList<>(KernelReader.latest(table, spec));
    kernel.sort(BusinessKeys.VERSION_ORDER);
    assertThat(kernel).containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
  }

  @Test
  void shouldRefuseToBulkLoadATableThatHoldsRows() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(CUSTOMERS);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 23L).keys(10).events(100).generate();
    Path table = dir.resolve("table");
    new Backfill(spec).load(BackfillInputs.of(stream.jsonLines()), "changes.jsonl", null, table);

    assertThatThrownBy(() -> new Backfill(spec).load(BackfillInputs.of(stream.jsonLines()), "changes.jsonl", null,
        table))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("already holds")
        .hasMessageContaining("Fix: load into a new, empty table");
  }
}
