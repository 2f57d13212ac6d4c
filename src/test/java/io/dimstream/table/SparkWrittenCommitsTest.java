package io.dimstream.table;

import static io.dimstream.table.SparkWrittenTablesTest.copy;
import static io.dimstream.fixtures.SparkWrittenTables.lines;
import static io.dimstream.fixtures.SparkWrittenTables.normalize;
import static io.dimstream.fixtures.SparkWrittenTables.parse;
import static io.dimstream.table.SparkWrittenTablesTest.rows;
import static io.dimstream.table.SparkWrittenTablesTest.scan;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.fixtures.SparkWrittenTables;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * dimstream goes on committing to tables Spark 4.0 + Delta 4.0 rewrote (nullable columns, INT96 or micros
 * timestamps, OPTIMIZE, deletion vectors on files dimstream wrote, Spark's own checkpoint), with deletion vectors (the
 * position index reads the key and valid_from of Spark's files) and without (files rewritten whole): the rows after
 * each commit are Spark's rows with exactly the changes committed, as dimstream and Delta Kernel read them, also after
 * optimize, vacuum and a checkpoint.
 */
class SparkWrittenCommitsTest {
  private static final Instant CLOSE = Instant.parse("2026-04-01T00:00:00Z");
  private static final Instant LATER = Instant.parse("2026-04-02T00:00:00Z");

  @TempDir
  Path dir;

  static Stream<Arguments> tables() {
    // dv-delete and dv-update already have deletion vectors (Spark enabled them); the others are moved to them too
    return SparkWrittenTablesTest.fixtures().flatMap(name -> name.startsWith("dv-")
        ? Stream.of(Arguments.of(name, true)) : Stream.of(Arguments.of(name, false), Arguments.of(name, true)));
  }

  @ParameterizedTest(name = "{0}, deletion vectors {1}")
  @MethodSource("tables")
  void shouldCommitNewVersionsCorrectionsAndRetractionsOnASparkWrittenTable(String name, boolean deletionVectors)
      throws IOException {
    Path copy = copy(name, dir);
    DeltaTable table = DeltaTable.open(copy);
    if (deletionVectors) {
      table.upgradeToDeletionVectors();
    }
    assertThat(table.mergeOnRead()).isEqualTo(deletionVectors);
    DimensionSpec spec = table.spec();
    List<ObjectNode> expected = new ArrayList<>(lines(name).stream().map(l -> (ObjectNode) parse(l)).toList());

    // keys 1001..1003: a new open version in Oslo (1002 is a row Spark's UPDATE rewrote in dv-update)
    List<VersionChange> changes = new ArrayList<>();
    for (long id : List.of(1001L, 1002L, 1003L)) {
      changes.addAll(moveTo(table, spec, id, CLOSE, "Oslo"));
      ObjectNode open = current(expected, id);
      ObjectNode next = open.deepCopy();
      open.put("valid_to", CLOSE.toString()).put("is_current", false);
      next.put("valid_from", CLOSE.toString()).put("city", "Oslo");
      expected.add(next);
    }
    // the first closed version of 1001 retracted, that of 1003 corrected (both found in closed files)
    Version first1001 = firstClosed(table, 1001);
    changes.add(new VersionChange.Retraction(first1001.key(), first1001.validFrom()));
    expected.remove(firstClosed(expected, 1001));
    Version first1003 = firstClosed(table, 1003);
    changes.add(new VersionChange.Upsert(first1003.withAttributes(with(spec, first1003, "name", "Corrected Name")),
        ChangeKind.CORRECT));
    firstClosed(expected, 1003).put("name", "Corrected Name");

    long before = table.latest().version();
    CommitResult r = table.newCommit(Operation.MERGE).txns(Map.of("spark-written-commits", 1L)).apply(changes);
    assertThat(r.committed()).isTrue();
    assertThat(table.latest().version()).isGreaterThan(before);
    assertRows(copy, expected);

    // a second commit after the first: the position index goes on from its own commit
    changes = new ArrayList<>(moveTo(table, spec, 1001, LATER, "Bergen"));
    ObjectNode open = current(expected, 1001);
    ObjectNode next = open.deepCopy();
    open.put("valid_to", LATER.toString()).put("is_current", false);
    next.put("valid_from", LATER.toString()).put("city", "Bergen");
    expected.add(next);
    table.newCommit(Operation.MERGE).txns(Map.of("spark-written-commits", 2L)).apply(changes);
    assertRows(copy, expected);
    assertThat(rows(spec, table.latest().history(new BusinessKey(List.of(1001L)))))
        .containsExactlyInAnyOrderElementsOf(expected.stream().filter(n -> n.get("customer_id").asLong() == 1001)
            .map(SparkWrittenTables::normalize).toList());

    // a fresh process (no index in memory) rebuilds the index from Spark's files and commits again
    DeltaTable reopened = DeltaTable.open(copy);
    changes = new ArrayList<>(moveTo(reopened, spec, 1003, LATER, "Bergen"));
    open = current(expected, 1003);
    next = open.deepCopy();
    open.put("valid_to", LATER.toString()).put("is_current", false);
    next.put("valid_from", LATER.toString()).put("city", "Bergen");
    expected.add(next);
    reopened.newCommit(Operation.MERGE).txns(Map.of("spark-written-commits", 3L)).apply(changes);
    assertRows(copy, expected);

    reopened.optimize();
    reopened.newCompaction().runFull();
    reopened.checkpoint();
    reopened.vacuum(Duration.ZERO);
    assertRows(copy, expected);
  }

  private static void assertRows(Path table, List<ObjectNode> expected) {
    List<String> want = expected.stream().map(SparkWrittenTables::normalize).toList();
    DeltaTable t = DeltaTable.open(table);
    assertThat(rows(t.spec(), scan(t.latest()))).containsExactlyInAnyOrderElementsOf(want);
    assertThat(rows(t.spec(), KernelReader.latest(table, t.spec()))).containsExactlyInAnyOrderElementsOf(want);
  }

  /** The upserts that close the open version of {@code id} at {@code at} and open one in {@code city}. */
  private static List<VersionChange> moveTo(DeltaTable table, DimensionSpec spec, long id, Instant at, String city) {
    Version open = table.latest().history(new BusinessKey(List.of(id))).stream().filter(Version::isCurrent)
        .findFirst().orElseThrow();
    Sequence t = Sequence.of(ColumnValues.sequenceLong(at, spec.sequenceColumns().get(0).type()));
    Version next = new Version(open.key(), t, null, with(spec, open, "city", city));
    return List.of(new VersionChange.Upsert(open.closedAt(t), ChangeKind.CLOSE),
        new VersionChange.Upsert(next, ChangeKind.OPEN));
  }

  private static List<Object> with(DimensionSpec spec, Version v, String column, Object value) {
    List<Object> attributes = new ArrayList<>(v.attributes());
    List<String> names = new TableLayout(spec).attributeColumns.stream().map(c -> c.name()).toList();
    attributes.set(names.indexOf(column), value);
    return attributes;
  }

  private static Version firstClosed(DeltaTable table, long id) {
    return table.latest().history(new BusinessKey(List.of(id))).stream().filter(v -> !v.isCurrent())
        .min(Comparator.comparing(Version::validFrom)).orElseThrow();
  }

  private static ObjectNode current(List<ObjectNode> rows, long id) {
    return rows.stream().filter(n -> n.get("customer_id").asLong() == id && n.get("valid_to").isNull())
        .findFirst().orElseThrow();
  }

  private static ObjectNode firstClosed(List<ObjectNode> rows, long id) {
    return rows.stream().filter(n -> n.get("customer_id").asLong() == id && !n.get("valid_to").isNull())
        .min(Comparator.comparing((JsonNode n) -> Instant.parse(n.get("valid_from").asText()))).orElseThrow();
  }
}
