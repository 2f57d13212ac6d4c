package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.config.DimensionSpec;
import io.dimstream.config.DimensionSpecLoader;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.table.TableException;
import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackfillLoadTest {
  private static final Path CUSTOMERS = Path.of("examples/customers.yaml");

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
    DeltaTable.open(table).commit(changes, Map.of(), "MERGE");

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
