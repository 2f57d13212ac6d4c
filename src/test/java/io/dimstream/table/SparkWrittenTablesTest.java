package io.dimstream.table;

import static io.dimstream.fixtures.SparkWrittenTables.lines;
import static io.dimstream.fixtures.SparkWrittenTables.normalize;
import static io.dimstream.fixtures.SparkWrittenTables.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.fixtures.SparkWrittenTables;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.log.Checkpoints;
import io.dimstream.table.internal.log.DeltaLog;
import io.dimstream.table.internal.log.TableState;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tables Spark 4.0 + Delta 4.0 wrote on dimstream tables (deletion vectors, INT96 timestamps, OPTIMIZE, a checkpoint
 * with only {@code stats_parsed}): our reader returns exactly the rows Spark reads, and so does Delta Kernel.
 */
class SparkWrittenTablesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  static Stream<String> fixtures() {
    return SparkWrittenTables.names();
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void shouldReadExactlyTheRowsSparkReads(String name) {
    DeltaTable table = DeltaTable.open(SparkWrittenTables.table(name));
    List<String> expected = expectedRows(name);
    assertThat(rows(table.spec(), scan(table.latest()))).containsExactlyInAnyOrderElementsOf(expected);
    // the checkpoint Spark wrote with writeStatsAsJson=false holds no statistics at all: the count is unknown
    assertThat(table.latest().rowCount()).isEqualTo(name.equals("checkpoint-nostats") ? -1 : expected.size());
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void shouldReadWhatDeltaKernelReads(String name) {
    Path path = SparkWrittenTables.table(name);
    DeltaTable table = DeltaTable.open(path);
    DimensionSpec spec = table.spec();
    assertThat(rows(spec, KernelReader.latest(path, spec))).containsExactlyInAnyOrderElementsOf(expectedRows(name));
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void shouldTimeTravelToEveryVersionAsKernelDoes(String name) {
    Path path = SparkWrittenTables.table(name);
    DeltaTable table = DeltaTable.open(path);
    DimensionSpec spec = table.spec();
    long latest = table.latest().version();
    for (long v = 0; v <= latest; v++) {
      assertThat(rows(spec, scan(table.snapshotAt(v))))
          .as("%s at version %d", name, v)
          .containsExactlyInAnyOrderElementsOf(rows(spec, KernelReader.atVersion(path, spec, v)));
    }
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void shouldReadItsOwnCheckpointOfASparkWrittenTable(String name) throws IOException {
    Path copy = copy(name);
    DeltaTable.open(copy).checkpoint();
    DeltaTable reopened = DeltaTable.open(copy);
    DimensionSpec spec = reopened.spec();
    List<String> expected = expectedRows(name);
    assertThat(rows(spec, scan(reopened.latest()))).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(rows(spec, KernelReader.latest(copy, spec))).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void shouldReplayADeletionVectorChangeOnTopOfACheckpointThatCarriesTheFormerOne() throws IOException {
    Path copy = copy("dv-delete");
    DeltaTable table = DeltaTable.open(copy);
    DimensionSpec spec = table.spec();
    // version 3 holds the first DELETE's DV; version 4 removes that file-and-DV and adds the file with a new DV
    TableState three = table.snapshotAt(3).state;
    assertThat(three.adds.values()).anyMatch(a -> a.deletionVector() != null);
    Checkpoints.write(new DeltaLog(copy), three, 0);
    assertThat(new DeltaLog(copy).checkpointVersions()).containsExactly(3L);
    DeltaTable reopened = DeltaTable.open(copy);
    List<String> expected = expectedRows("dv-delete");
    assertThat(rows(spec, scan(reopened.latest()))).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(rows(spec, KernelReader.latest(copy, spec))).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(rows(spec, scan(reopened.snapshotAt(3))))
        .containsExactlyInAnyOrderElementsOf(rows(spec, KernelReader.atVersion(copy, spec, 3)));
  }

  @Test
  void shouldRefuseADeletionVectorThatDeletesRowsTheFileDoesNotHave() throws IOException {
    Path copy = copy("dv-delete");
    Path commit = copy.resolve("_delta_log/00000000000000000004.json");
    // give the 3-row bucket file the 130-row closed file's DV, as a writer mixing up its files would
    String log = Files.readString(commit);
    String wrong = log.replace("\"offset\":88,\"sizeInBytes\":34,\"cardinality\":1}",
        "\"offset\":1,\"sizeInBytes\":79,\"cardinality\":51}");
    assertThat(wrong).isNotEqualTo(log);
    Files.writeString(commit, wrong);
    DeltaTable table = DeltaTable.open(copy);
    assertThatThrownBy(() -> scan(table.latest())).isInstanceOf(TableException.class)
        .hasMessageContaining("bucket-00001-of-00064").hasMessageContaining("does not belong to this file")
        .hasMessageContaining("Fix:");
  }

  @Test
  void shouldRefuseToVacuumATableWhoseWriterFeaturesItDoesNotImplementAndDeleteNothing() throws IOException {
    Path copy = copy("dv-delete");
    DeltaTable table = DeltaTable.open(copy);
    // Spark's own protocol (deletionVectors, invariants, appendOnly) is one dimstream writes; another engine then
    // enables a writer feature dimstream does not implement
    TableState s = table.latest().state;
    table.writer().write(s.version + 1, List.of(new Protocol(3, 7, List.of(Protocol.DELETION_VECTORS),
        List.of(Protocol.DELETION_VECTORS, "invariants", "appendOnly", "generatedColumns"))),
        table.writer().timestampAfter(s), List.of(), s);
    List<Path> before;
    try (Stream<Path> files = Files.walk(copy)) {
      before = files.filter(Files::isRegularFile).sorted().toList();
    }
    assertThatThrownBy(() -> table.vacuum(java.time.Duration.ZERO)).isInstanceOf(TableException.class)
        .hasMessageContaining("writer version 7").hasMessageContaining("nothing was changed")
        .hasMessageContaining("Fix:");
    try (Stream<Path> files = Files.walk(copy)) {
      assertThat(files.filter(Files::isRegularFile).sorted().toList()).isEqualTo(before);
    }
    assertThat(rows(table.spec(), scan(DeltaTable.open(copy).latest())))
        .containsExactlyInAnyOrderElementsOf(expectedRows("dv-delete"));
  }

  @Test
  void shouldVacuumATableSparkMovedToDeletionVectorsAndKeepEveryFileItsRowsNeed() throws IOException {
    Path copy = copy("dv-delete");
    DeltaTable table = DeltaTable.open(copy);
    assertThat(table.latest().state.protocol.writerFeatures())
        .containsExactlyInAnyOrder(Protocol.DELETION_VECTORS, "invariants", "appendOnly");
    table.vacuum(java.time.Duration.ZERO);
    DeltaTable reopened = DeltaTable.open(copy);
    List<String> expected = expectedRows("dv-delete");
    assertThat(rows(reopened.spec(), scan(reopened.latest()))).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(rows(reopened.spec(), KernelReader.latest(copy, reopened.spec())))
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void shouldNeverReturnRowsADeletionVectorDeletes() {
    DeltaTable table = DeltaTable.open(SparkWrittenTables.table("dv-delete"));
    Snapshot s = table.latest();
    assertThat(s.history(new BusinessKey(List.of(1004L)))).isEmpty();
    // Spark deleted the closed versions of every third key (1002 = 3 * 334): only its open one is left
    assertThat(s.history(new BusinessKey(List.of(1002L)))).singleElement().satisfies(v -> assertThat(v.isCurrent())
        .isTrue());
    assertThat(s.history(new BusinessKey(List.of(1003L)))).hasSize(4);
    // version 2 is before both DELETEs: every version of the keys is there
    assertThat(table.snapshotAt(2).history(new BusinessKey(List.of(1004L)))).hasSize(3);
    assertThat(table.snapshotAt(2).history(new BusinessKey(List.of(1002L)))).hasSize(3);
  }

  @Test
  void shouldAnswerAsOfFromTheRowsSparkReads() {
    DeltaTable table = DeltaTable.open(SparkWrittenTables.table("dv-update"));
    DimensionSpec spec = table.spec();
    Instant t = Instant.parse("2026-03-04T12:00:00Z");
    long micros = ColumnValues.sequenceLong(t, spec.sequenceColumns().get(0).type());
    List<String> expected = new ArrayList<>();
    for (String line : lines("dv-update")) {
      JsonNode n = parse(line);
      Instant from = Instant.parse(n.get(spec.output().validFrom()).asText());
      JsonNode to = n.get(spec.output().validTo());
      if (!from.isAfter(t) && (to.isNull() || Instant.parse(to.asText()).isAfter(t))) {
        expected.add(normalize(n));
      }
    }
    List<Version> ours;
    try (Stream<Version> s = table.latest().asOf(micros)) {
      ours = s.toList();
    }
    assertThat(expected).isNotEmpty();
    assertThat(rows(spec, ours)).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void shouldReadTheKeyHistoryOfARowSparkUpdatedThroughADeletionVector() {
    DeltaTable table = DeltaTable.open(SparkWrittenTables.table("dv-update"));
    DimensionSpec spec = table.spec();
    for (long id : List.of(1002L, 1004L, 1012L)) {
      List<String> expected = lines("dv-update").stream().map(SparkWrittenTables::parse)
          .filter(n -> n.get("customer_id").asLong() == id).map(SparkWrittenTables::normalize).toList();
      assertThat(rows(spec, table.latest().history(new BusinessKey(List.of(id)))))
          .as("key %d", id).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  private Path copy(String name) throws IOException {
    return copy(name, dir);
  }

  /** A copy of the fixture table {@code name} under {@code dir}, with the files' modification times. */
  static Path copy(String name, Path dir) throws IOException {
    return SparkWrittenTables.copy(name, dir);
  }

  static List<Version> scan(Snapshot s) {
    try (Stream<Version> rows = s.scan()) {
      return rows.toList();
    }
  }

  static List<String> expectedRows(String name) {
    return SparkWrittenTables.normalizedRows(name);
  }

  /** Versions as the rows a Delta reader shows: every column by name, is_current included. */
  static List<String> rows(DimensionSpec spec, List<Version> versions) {
    TableLayout layout = new TableLayout(spec);
    List<String> out = new ArrayList<>();
    for (Version v : versions) {
      Map<String, String> m = new TreeMap<>();
      for (int i = 0; i < layout.keyColumns.size(); i++) {
        m.put(layout.keyColumns.get(i).name(), value(v.key().values().get(i)));
      }
      for (int i = 0; i < layout.attributeColumns.size(); i++) {
        m.put(layout.attributeColumns.get(i).name(), value(v.attributes().get(i)));
      }
      for (int i = 0; i < layout.validFromColumns.size(); i++) {
        Column from = layout.validFromColumns.get(i);
        Column to = layout.validToColumns.get(i);
        m.put(from.name(), value(ColumnValues.sequenceValue(v.validFrom().part(i), from.type())));
        m.put(to.name(), v.validTo() == null ? "null"
            : value(ColumnValues.sequenceValue(v.validTo().part(i), to.type())));
      }
      m.put(spec.output().isCurrent(), Boolean.toString(v.isCurrent()));
      out.add(m.toString());
    }
    return out;
  }

  private static String value(Object o) {
    return o == null ? "null" : o.toString();
  }
}
