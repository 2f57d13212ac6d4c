package io.dimstream.cli;

import static io.dimstream.fixtures.SparkWrittenTables.lines;
import static io.dimstream.fixtures.SparkWrittenTables.normalize;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.fixtures.SparkWrittenTables;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.table.Operation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The commands on tables Spark 4.0 + Delta 4.0 wrote (nullable columns, INT96 timestamps, OPTIMIZE, deletion vectors,
 * Spark's checkpoint): queries answer as on the same rows in files dimstream wrote, and {@code apply-snapshot}
 * commits exactly the snapshot's changes over Spark's rows.
 */
class SparkWrittenCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  static Stream<String> fixtures() {
    return SparkWrittenTables.names();
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void shouldAnswerQueriesAsOnTheSameRowsInFilesDimstreamWrote(String name) {
    Path spark = SparkWrittenTables.table(name);
    DeltaTable table = DeltaTable.open(spark);
    DimensionSpec spec = table.spec();
    Path ours = dir.resolve("ours");
    List<Version> rows;
    try (Stream<Version> s = table.latest().scan()) {
      rows = s.toList();
    }
    assertThat(rows).hasSize(lines(name).size());
    DeltaTable.create(ours, spec, Map.of()).newCommit(Operation.WRITE).apply(rows.stream()
        .<VersionChange>map(v -> new VersionChange.Upsert(v, ChangeKind.OPEN)).toList());

    List<List<String>> queries = new ArrayList<>();
    for (String at : List.of("2026-03-02T12:00:00Z", "2026-03-04T00:00:00Z", "2026-03-05T12:00:00Z",
        "2026-03-08T00:00:00Z")) {
      queries.add(List.of("as-of", "--at", at));
    }
    for (String key : List.of("1001", "1002", "1003", "1004")) {
      queries.add(List.of("history", "--key", key));
    }
    queries.add(List.of("changes", "--from", "2026-03-01T00:00:00Z", "--to", "2026-03-08T00:00:00Z"));
    queries.add(List.of("changes", "--from", "2026-03-04T00:00:00Z", "--to", "2026-03-05T00:00:00Z"));
    for (List<String> q : queries) {
      QueryCommandTest.Run onSpark = query(q, spark);
      QueryCommandTest.Run onOurs = query(q, ours);
      // 1004 has no version left in dv-delete: both answer so (exit code 1)
      assertThat(onSpark.code()).as("%s on %s: %s", q, name, onSpark.err()).isEqualTo(onOurs.code())
          .isEqualTo(name.equals("dv-delete") && q.contains("1004") ? 1 : 0);
      if (q.get(0).equals("as-of")) {
        // as-of streams rows in table order, which is the files' order
        assertThat(onSpark.out().lines().sorted().toList()).as("%s on %s", q, name)
            .isEqualTo(onOurs.out().lines().sorted().toList());
      } else {
        assertThat(onSpark.out()).as("%s on %s", q, name).isEqualTo(onOurs.out());
      }
    }
    assertThat(query(queries.get(2), spark).out().lines().count()).as("an as-of answer with rows").isGreaterThan(5);
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void shouldApplyASnapshotOverSparksRows(String name) throws IOException {
    Path table = SparkWrittenTables.copy(name, dir);
    if (!DeltaTable.open(table).mergeOnRead()) {
      // on deletion vectors the position index reads the key and valid_from of Spark's files
      QueryCommandTest.Run up = QueryCommandTest.run(new TableCommand(), "upgrade", "--table", table.toString(),
          "--deletion-vectors");
      assertThat(up.code()).as(up.out() + up.err()).isZero();
    }
    String at = "2026-04-01T00:00:00Z";
    // the export: every current row, 1001 moved to Oslo, 1003 gone, 9999 new
    List<ObjectNode> expected = new ArrayList<>();
    List<String> snapshot = new ArrayList<>();
    for (String line : lines(name)) {
      ObjectNode row = (ObjectNode) JSON.readTree(line);
      expected.add(row);
      if (!row.get("valid_to").isNull()) {
        continue;
      }
      long id = row.get("customer_id").asLong();
      ObjectNode export = exported(row);
      if (id == 1003) {
        row.put("valid_to", at).put("is_current", false);
        continue;
      }
      if (id == 1001) {
        ObjectNode next = row.deepCopy().put("city", "Oslo").put("valid_from", at);
        row.put("valid_to", at).put("is_current", false);
        expected.add(next);
        export.put("city", "Oslo");
      }
      snapshot.add(JSON.writeValueAsString(export));
    }
    ObjectNode added = JSON.createObjectNode().put("customer_id", 9999).put("name", "New Customer")
        .put("email", "new@example.com").put("city", "Bergen").put("tier", "silver");
    snapshot.add(JSON.writeValueAsString(added));
    expected.add(added.deepCopy().put("valid_from", at).putNull("valid_to").put("is_current", true));
    Path input = Files.write(dir.resolve("snapshot.jsonl"), snapshot);
    long before = DeltaTable.open(table).latest().version();

    QueryCommandTest.Run r = QueryCommandTest.run(new ApplySnapshotCommand(), "--config", "examples/customers.yaml",
        "--table", table.toString(), "--input", input.toString(), "--at", at);

    assertThat(r.code()).as(r.out() + r.err()).isZero();
    DeltaTable after = DeltaTable.open(table);
    assertThat(after.latest().version()).isEqualTo(before + 1);
    List<String> want = expected.stream().map(SparkWrittenTables::normalize).toList();
    assertThat(rows(after.latest().scan().toList(), after.spec())).containsExactlyInAnyOrderElementsOf(want);
    assertThat(rows(KernelReader.latest(table, after.spec()), after.spec())).containsExactlyInAnyOrderElementsOf(want);
    QueryCommandTest.Run verify = QueryCommandTest.run(new TableCommand(), "verify", "--table", table.toString());
    assertThat(verify.code()).as(verify.out() + verify.err()).isZero();
  }

  private static QueryCommandTest.Run query(List<String> args, Path table) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--table", table.toString(), "--format", "json"));
    return QueryCommandTest.run(new QueryCommand(), all.toArray(String[]::new));
  }

  /** The columns of a row a source exports (no validity, no is_current, no sequence: the snapshot's --at is it). */
  private static ObjectNode exported(ObjectNode row) {
    ObjectNode out = JSON.createObjectNode();
    for (String c : List.of("customer_id", "name", "email", "city", "tier")) {
      out.set(c, row.get(c));
    }
    return out;
  }

  /** Versions as Delta rows (column=value, sorted), timestamps as instants. */
  private static List<String> rows(List<Version> versions, DimensionSpec spec) {
    List<String> out = new ArrayList<>();
    List<String> attributes = spec.attributeColumns().stream().map(c -> c.name()).toList();
    for (Version v : versions) {
      ObjectNode n = JSON.createObjectNode();
      n.put("customer_id", (Long) v.key().values().get(0));
      for (int i = 0; i < attributes.size(); i++) {
        n.put(attributes.get(i), (String) v.attributes().get(i));
      }
      n.put("valid_from", micros(v.validFrom().first()));
      if (v.validTo() == null) {
        n.putNull("valid_to");
      } else {
        n.put("valid_to", micros(v.validTo().first()));
      }
      n.put("is_current", v.isCurrent());
      out.add(normalize(n));
    }
    return out;
  }

  private static String micros(long epochMicros) {
    return Instant.EPOCH.plus(epochMicros, java.time.temporal.ChronoUnit.MICROS).toString();
  }
}
