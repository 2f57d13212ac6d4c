package io.dimstream.trino;

import static io.dimstream.trino.TrinoChecks.location;
import static io.dimstream.trino.TrinoChecks.register;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.cli.Main;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.table.Operation;
import io.dimstream.testkit.ChangeStreams;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table with {@code delta.enableChangeDataFeed: "true"} (merge-on-read and copy-on-write) written in waves of a
 * generated stream (late events that splice into or retract closed versions, deletes, re-inserts), a full compaction
 * and {@code table optimize} between the waves, read by a real Trino 476 with
 * {@code TABLE(delta.system.table_changes(...))} from the table's creation and from a version in the middle. For every
 * commit, the {@code update_preimage} and {@code delete} rows Trino returns are the rows the commit removed (the table
 * before it, as Delta Kernel reads it, less the table after it) and the {@code update_postimage} and {@code insert}
 * rows the rows it added; compaction and optimize add none, and {@code _commit_version} and
 * {@code _commit_timestamp} are the commit's.
 */
class TrinoChangeFeedIT {
  private static final int WAVES = 6;
  private static final String CHANGE_TYPE = "_change_type";
  private static final String COMMIT_VERSION = "_commit_version";
  private static final String COMMIT_TIMESTAMP = "_commit_timestamp";

  @TempDir
  Path dir;

  /** One row of the feed: its {@code _change_type} and the version row, as Trino reads it. */
  record ChangeRow(String type, Version version) {}

  @ParameterizedTest(name = "deletion vectors {0}")
  @ValueSource(booleans = {true, false})
  void shouldReadEachCommitsChangesWithTableChanges(boolean deletionVectors) throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_trino_cdf_" + deletionVectors, "",
        "output: {table_properties: {delta.enableChangeDataFeed: \"true\", delta.enableDeletionVectors: \""
            + deletionVectors + "\"}}\n");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, deletionVectors ? 71L : 72L).keys(120)
        .events(1_600).late(0.1).duplicates(0.03).noChange(0.1).deletes(0.08).generate();
    Path table = dir.resolve("table");
    DeltaTable t = DeltaTable.openOrCreate(table, spec);
    assertThat(t.mergeOnRead()).isEqualTo(deletionVectors);
    long created = t.latest().version();

    // each wave commits the difference between the fold of the events so far and the fold before it, as the
    // versions topic carries it; a full compaction after the second wave, `table optimize` after the fourth
    List<ChangeEvent> events = stream.events();
    List<Version> before = List.of();
    boolean retracted = false;
    List<Long> maintenance = new ArrayList<>();
    long middle = -1;
    for (int w = 0; w < WAVES; w++) {
      List<Version> after = Scd2Fold.fold(spec, events.subList(0, (w + 1) * events.size() / WAVES));
      List<VersionChange> changes = diff(before, after);
      retracted |= changes.stream().anyMatch(c -> c instanceof VersionChange.Retraction);
      assertThat(t.newCommit(Operation.MERGE).apply(changes).committed()).as("wave %d commits", w + 1).isTrue();
      before = after;
      long committed = t.latest().version();
      if (w == 1) {
        middle = committed;
        t.newCompaction().runFull();
      } else if (w == 3) {
        assertThat(Main.commandLine().execute("table", "optimize", "--table", table.toString())).isZero();
        t = DeltaTable.open(table);
      }
      for (long v = committed + 1; v <= t.latest().version(); v++) {
        maintenance.add(v);
      }
    }
    t = DeltaTable.open(table);
    long latest = t.latest().version();
    assertThat(retracted).as("a late event retracted a version").isTrue();
    assertThat(maintenance).as("compaction or optimize committed").isNotEmpty();
    assertThat(KernelReader.latest(table, spec)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(before).as("times below the millisecond, which Trino rounds")
        .anyMatch(v -> v.validFrom().first() % 1_000 != 0);
    Map<Object, List<Version>> byKey = before.stream().collect(Collectors.groupingBy(v -> v.key()));
    assertThat(byKey.values()).as("a deleted key").anyMatch(vs -> vs.stream().noneMatch(Version::isCurrent));
    assertThat(byKey.values()).as("a key inserted again after a delete").anyMatch(TrinoChangeFeedIT::reinserted);
    // the first commit only inserts: Trino reads its add actions, as the protocol lets a writer leave out its change
    // data; the second one closes versions and writes change data files
    assertThat(commitFile(table, created + 1)).doesNotContain("\"cdc\"");
    assertThat(commitFile(table, created + 2)).contains("\"cdc\"");

    // what each commit did, from the table as Delta Kernel reads it before and after
    TreeMap<Long, List<ChangeRow>> expected = new TreeMap<>();
    for (long v = created + 1; v <= latest; v++) {
      expected.put(v, difference(KernelReader.atVersion(table, spec, v - 1), KernelReader.atVersion(table, spec, v),
          spec));
    }
    for (long v : maintenance) {
      assertThat(expected.get(v)).as("compaction at version %d keeps the rows", v).isEmpty();
    }
    Map<Long, Instant> committedAt = t.history().stream()
        .collect(Collectors.toMap(CommitSummary::version, CommitSummary::timestamp));

    TrinoServer trino = TrinoServer.shared();
    String name = register(trino, "delta", location(table));
    String[] parts = name.split("\\.");
    String function = "SELECT * FROM TABLE(" + parts[0] + ".system.table_changes(schema_name => '" + parts[1]
        + "', table_name => '" + parts[2] + "'";

    List<Map<String, Object>> all = TrinoRows.query(trino, function + "))");
    assertCommits(all, expected, committedAt, spec);
    assertThat(all).extracting(r -> r.get(CHANGE_TYPE)).as("change types of a run with late events and deletes")
        .contains("insert", "update_preimage", "update_postimage", "delete");
    // since_version is exclusive: after the version that created the table, every change
    assertCommits(TrinoRows.query(trino, function + ", since_version => " + created + "))"), expected, committedAt,
        spec);

    List<Map<String, Object>> fromMiddle = TrinoRows.query(trino, function + ", since_version => " + middle + "))");
    assertCommits(fromMiddle, new TreeMap<>(expected.tailMap(middle, false)), committedAt, spec);
  }

  /**
   * The rows of {@code table_changes} grouped by {@code _commit_version}: the versions with a change are exactly the
   * commits of {@code expected} that removed or added a row, and each one's rows are that commit's.
   */
  private static void assertCommits(List<Map<String, Object>> rows, TreeMap<Long, List<ChangeRow>> expected,
      Map<Long, Instant> committedAt, DimensionSpec spec) {
    TreeMap<Long, List<Map<String, Object>>> byVersion = new TreeMap<>();
    rows.forEach(r -> byVersion.computeIfAbsent(((Number) r.get(COMMIT_VERSION)).longValue(),
        v -> new ArrayList<>()).add(r));
    assertThat(byVersion.keySet()).as("the commit versions with changes").containsExactlyElementsOf(
        expected.entrySet().stream().filter(e -> !e.getValue().isEmpty()).map(Map.Entry::getKey).toList());
    for (Map.Entry<Long, List<Map<String, Object>>> e : byVersion.entrySet()) {
      long version = e.getKey();
      assertThat(changeRows(e.getValue(), spec)).as("the change rows of version %d", version)
          .containsExactlyInAnyOrderElementsOf(expected.get(version));
      assertThat(e.getValue()).extracting(r -> r.get(COMMIT_TIMESTAMP)).as("_commit_timestamp of version %d", version)
          .containsOnly(committedAt.get(version));
    }
  }

  /** Trino's rows as change rows, the feed's own columns left out of the versions. */
  private static List<ChangeRow> changeRows(List<Map<String, Object>> rows, DimensionSpec spec) {
    List<ChangeRow> out = new ArrayList<>();
    for (Map<String, Object> r : rows) {
      Map<String, Object> columns = new HashMap<>(r);
      columns.keySet().removeAll(List.of(CHANGE_TYPE, COMMIT_VERSION, COMMIT_TIMESTAMP));
      out.add(new ChangeRow((String) r.get(CHANGE_TYPE), KernelReader.versions(List.of(columns), spec).get(0)));
    }
    return out;
  }

  /**
   * The change rows that turn the table holding {@code before} into one holding {@code after}, as Trino reads them: a
   * version (key, valid_from) in both but different is an {@code update_preimage} / {@code update_postimage} pair,
   * one only before a {@code delete}, one only after an {@code insert}.
   */
  private static List<ChangeRow> difference(List<Version> before, List<Version> after, DimensionSpec spec) {
    Map<VersionId, Version> was = new HashMap<>();
    before.forEach(v -> assertThat(was.put(VersionId.of(v), v)).as("one row per version").isNull());
    List<ChangeRow> out = new ArrayList<>();
    for (Version v : after) {
      Version old = was.remove(VersionId.of(v));
      if (old == null) {
        out.add(asTrinoReads("insert", v, spec));
      } else if (!old.equals(v)) {
        out.add(asTrinoReads("update_preimage", old, spec));
        out.add(asTrinoReads("update_postimage", v, spec));
      }
    }
    was.values().forEach(v -> out.add(asTrinoReads("delete", v, spec)));
    return out;
  }

  private static ChangeRow asTrinoReads(String type, Version v, DimensionSpec spec) {
    return new ChangeRow(type, TrinoChecks.asTrinoReads(List.of(v), spec).get(0));
  }

  /** Whether some version of the key starts after the one before it ended: a delete, then the key again. */
  private static boolean reinserted(List<Version> versions) {
    List<Version> sorted = versions.stream().sorted(Comparator.comparing(Version::validFrom)).toList();
    for (int i = 1; i < sorted.size(); i++) {
      if (!sorted.get(i).validFrom().equals(sorted.get(i - 1).validTo())) {
        return true;
      }
    }
    return false;
  }

  private static String commitFile(Path table, long version) throws IOException {
    return Files.readString(table.resolve("_delta_log").resolve(String.format("%020d.json", version)));
  }

  /** The upserts and retractions that turn a table holding {@code from} into one holding {@code to}. */
  private static List<VersionChange> diff(List<Version> from, List<Version> to) {
    Map<VersionId, Version> before = new HashMap<>();
    from.forEach(v -> before.put(VersionId.of(v), v));
    List<VersionChange> out = new ArrayList<>();
    for (Version v : to) {
      Version old = before.remove(VersionId.of(v));
      if (old == null) {
        out.add(new VersionChange.Upsert(v, ChangeKind.OPEN));
      } else if (!v.equals(old)) {
        boolean closed = old.isCurrent() && !v.isCurrent() && old.attributes().equals(v.attributes());
        out.add(new VersionChange.Upsert(v, closed ? ChangeKind.CLOSE : ChangeKind.CORRECT));
      }
    }
    before.keySet().forEach(id -> out.add(new VersionChange.Retraction(id.key(), id.validFrom())));
    return out;
  }
}
