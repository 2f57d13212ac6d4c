package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.HistoryMode;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.table.TableException;
import io.dimstream.testkit.DimensionTestDriver;
import io.dimstream.topology.TopologyRunner;
import io.dimstream.table.Operation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code history: scd1} through every path that builds a table: the test kit, replay, backfill,
 * and the topology's version records committed as {@code MERGE} (as the compactor does), read back by Delta Kernel.
 */
class Scd1TableTest {
  private static final Path SPEC_FILE = Path.of("examples/customers-scd1.yaml");

  @TempDir
  Path dir;

  /** Customer 1 is updated (then an older update arrives late), 2 is deleted, 3 is deleted and comes back. */
  private static final List<String> EVENTS = List.of(
      customer(1, "Oslo", "2026-01-01T00:00:00Z", "c"),
      customer(2, "Rome", "2026-01-01T00:00:00Z", "c"),
      customer(3, "Pisa", "2026-01-01T00:00:00Z", "c"),
      customer(1, "Lyon", "2026-01-03T00:00:00Z", "u"),
      customer(1, "Nice", "2026-01-02T00:00:00Z", "u"),
      customer(2, "Rome", "2026-01-02T00:00:00Z", "d"),
      customer(3, "Pisa", "2026-01-02T00:00:00Z", "d"),
      customer(3, "Bern", "2026-01-04T00:00:00Z", "u"));

  @Test
  void shouldKeepOneRowPerKeyWithItsLatestStateInTheTestKit() {
    try (DimensionTestDriver driver = DimensionTestDriver.of(SPEC_FILE)) {
      driver.send(EVENTS.toArray(String[]::new));
      assertThat(driver.versions()).extracting(Scd1TableTest::row).containsExactly(
          "1 Lyon from 2026-01-01T00:00:00Z open",
          "3 Bern from 2026-01-01T00:00:00Z open");
      assertThat(driver.current(2)).isEmpty();
      assertThat(driver.dlq()).isEmpty();
    }
  }

  @Test
  void shouldKeepDeletedRowsClosedWithSoftDelete() {
    DimensionSpec soft = softDelete();
    try (DimensionTestDriver driver = DimensionTestDriver.of(soft)) {
      driver.send(EVENTS.toArray(String[]::new));
      assertThat(driver.versions()).extracting(Scd1TableTest::row).containsExactly(
          "1 Lyon from 2026-01-01T00:00:00Z open",
          "2 Rome from 2026-01-01T00:00:00Z closed at 2026-01-02T00:00:00Z",
          "3 Bern from 2026-01-01T00:00:00Z open");
    }
  }

  @Test
  void shouldGiveTheSameRowsInReplayAndBackfill() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(SPEC_FILE);
    List<Version> kit;
    try (DimensionTestDriver driver = DimensionTestDriver.of(spec)) {
      kit = driver.send(EVENTS.toArray(String[]::new)).versions();
    }
    TopologyRunner.Replay replay = TopologyRunner.replay(spec, bytes(EVENTS).iterator(), r -> { });
    assertThat(replay.history()).containsExactlyElementsOf(kit);

    Backfill backfill = new Backfill(spec);
    List<Backfill.Input> inputs = new ArrayList<>();
    for (int i = 0; i < EVENTS.size(); i++) {
      inputs.add(new Backfill.Input(i + 1, EVENTS.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    Backfill.Result r = backfill.build(inputs.iterator(), "changes.jsonl", null);
    assertThat(r.versions()).containsExactlyElementsOf(kit);
    backfill.write(r, dir.resolve("table"));
    assertThat(sorted(KernelReader.latest(dir.resolve("table"), spec))).containsExactlyElementsOf(kit);
  }

  @Test
  void shouldCommitTheVersionRecordsAsMergeWithTypeOneRowCounts() {
    DimensionSpec spec = DimensionSpecLoader.load(SPEC_FILE);
    Path path = dir.resolve("scd1");
    DeltaTable table = DeltaTable.create(path, spec, Map.of());
    try (TopologyRunner runner = TopologyRunner.of(spec)) {
      runner.send(EVENTS.subList(0, 3).toArray(String[]::new));
      commit(table, runner);
      runner.send(EVENTS.subList(3, EVENTS.size()).toArray(String[]::new));
      commit(table, runner);
      assertThat(sorted(KernelReader.latest(path, spec))).containsExactlyElementsOf(runner.history());
      assertThat(KernelReader.latest(path, spec)).extracting(Scd1TableTest::row).containsExactlyInAnyOrder(
          "1 Lyon from 2026-01-01T00:00:00Z open",
          "3 Bern from 2026-01-01T00:00:00Z open");
    }
    List<CommitSummary> history = table.history(); // newest first
    assertThat(history.get(1).operation()).isEqualTo("MERGE");
    assertThat(history.get(1).operationMetrics()).containsEntry("numTargetRowsInserted", "3")
        .containsEntry("numTargetRowsUpdated", "0").containsEntry("numTargetRowsDeleted", "0");
    // second batch: 1 updated in place; 2 deleted; 3 deleted and back, so its row is updated, not re-inserted
    assertThat(history.get(0).operation()).isEqualTo("MERGE");
    assertThat(history.get(0).operationMetrics()).containsEntry("numTargetRowsInserted", "0")
        .containsEntry("numTargetRowsUpdated", "2").containsEntry("numTargetRowsDeleted", "1");
  }

  @Test
  void shouldRefuseToReuseATableWrittenWithAnotherHistoryMode() {
    DimensionSpec spec = DimensionSpecLoader.load(SPEC_FILE);
    DeltaTable.create(dir.resolve("t"), spec, Map.of());
    assertThat(DeltaTable.open(dir.resolve("t")).spec().history()).isEqualTo(spec.history());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DeltaTable.openOrCreate(dir.resolve("t"), softDelete()))
        .isInstanceOf(TableException.class).hasMessageContaining("history")
        .hasMessageContaining("scd1 with soft_delete").hasMessageContaining("Fix:");
  }

  private static void commit(DeltaTable table, TopologyRunner runner) {
    table.newCommit(Operation.MERGE).apply(runner.emitted().stream().map(TopologyRunner.Emitted::change).toList());
  }

  private static DimensionSpec softDelete() {
    DimensionSpec s = DimensionSpecLoader.load(SPEC_FILE);
    return new DimensionSpec(s.name(), s.source(), s.columns(), s.key(), s.sequence(), s.tracked(), s.deleteRule(),
        s.inputFormat(), s.outputFormat(), s.topics(), s.latenessHorizon(), s.output(), s.avroSchema(), s.service(),
        s.fields(), s.expressions(),
        new HistoryMode(HistoryMode.Kind.SCD1, true));
  }

  private static List<Version> sorted(List<Version> versions) {
    List<Version> out = new ArrayList<>(versions);
    out.sort(io.dimstream.model.BusinessKeys.VERSION_ORDER);
    return out;
  }

  private static List<byte[]> bytes(List<String> lines) {
    return lines.stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList();
  }

  /** "id city from T open|closed at T", with the attributes by name so the test does not depend on their order. */
  private static String row(Version v) {
    Object city = v.attributes().get(2); // name, email, city, tier
    return v.key().values().get(0) + " " + city + " from " + micros(v.validFrom().first())
        + (v.isCurrent() ? " open" : " closed at " + micros(v.validTo().first()));
  }

  private static String micros(long epochMicros) {
    return java.time.Instant.EPOCH.plus(epochMicros, java.time.temporal.ChronoUnit.MICROS).toString();
  }

  private static String customer(long id, String city, String at, String op) {
    return "{\"customer_id\": " + id + ", \"name\": \"N" + id + "\", \"email\": \"c" + id + "@example.com\", "
        + "\"city\": \"" + city + "\", \"tier\": \"gold\", \"updated_at\": \"" + at + "\", \"op\": \"" + op + "\"}";
  }
}
