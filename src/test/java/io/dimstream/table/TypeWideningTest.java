package io.dimstream.table;

import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.HistoryQueries;
import io.dimstream.query.TableVerifier;
import io.dimstream.query.TimeTravel;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A column widened between runs ({@code int → long}, a decimal's precision up): one commit with the
 * {@code typeWidening} feature, and every later read of the files written before it returns the wider type, in our
 * reader and in Delta Kernel alike.
 */
class TypeWideningTest {
  private static final String SPEC = """
      name: customers
      columns:
        customer_id: long
        name: string
        amount: "%s"
        seq: long
      key: [customer_id]
      sequence: [seq]
      """;

  @TempDir
  Path dir;

  /** One widening: the type names, values written before it (as read before and after), and a value only the wider holds. */
  record Widening(String narrow, String wide, Object before, Object beforeAsWide, Object other, Object otherAsWide,
      Object onlyWide) {}

  static Stream<Arguments> widenings() {
    Widening ints = new Widening("int", "long", 7, 7L, -3, -3L, 5_000_000_000L);
    Widening decimals = new Widening("decimal(10,2)", "decimal(18,2)", new BigDecimal("12345678.90"),
        new BigDecimal("12345678.90"), new BigDecimal("-0.05"), new BigDecimal("-0.05"),
        new BigDecimal("1234567890123456.78"));
    return Stream.of(
        Arguments.of(Named.of("int to long, merge-on-read", ints), true),
        Arguments.of(Named.of("int to long, copy-on-write", ints), false),
        Arguments.of(Named.of("decimal(10,2) to decimal(18,2), merge-on-read", decimals), true),
        Arguments.of(Named.of("decimal(10,2) to decimal(18,2), copy-on-write", decimals), false));
  }

  private DimensionSpec spec(String fileName, String type) throws IOException {
    Path file = dir.resolve(fileName);
    Files.writeString(file, SPEC.formatted(type));
    return DimensionSpecLoader.load(file);
  }

  private Path table() {
    return dir.resolve("table");
  }

  private static Version row(long key, long from, Long to, String name, Object amount) {
    return new Version(BusinessKey.of(key), Sequence.of(from), to == null ? null : Sequence.of(to),
        Arrays.asList(name, amount));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("widenings")
  void shouldWidenInOneCommitAndReadEveryOlderFileAsTheWiderType(Widening w, boolean deletionVectors)
      throws IOException {
    DimensionSpec narrow = spec("v1.yaml", w.narrow());
    DeltaTable t = DeltaTable.openOrCreate(table(), narrow,
        Map.of("delta.enableDeletionVectors", Boolean.toString(deletionVectors)), TableOptions.defaults());
    t.newCommit(Operation.WRITE)
        .apply(upserts(row(1, 10, null, "Ann", w.before()), row(2, 10, null, "Bob", w.other())));
    t.newCommit(Operation.MERGE)
        .apply(upserts(row(1, 10, 20L, "Ann", w.before()), row(1, 20, null, "Ann B", w.other())));
    t.checkpoint();
    long beforeWidening = t.latest().version();
    Protocol narrowProtocol = t.latest().state.protocol;

    DimensionSpec wide = spec("v2.yaml", w.wide());
    t = DeltaTable.openOrCreate(table(), wide);

    assertThat(t.latest().version()).as("one commit").isEqualTo(beforeWidening + 1);
    CommitSummary commit = t.history().get(0);
    assertThat(commit.operation()).isEqualTo("CHANGE COLUMN");
    assertThat(commit.operationParameters())
        .containsEntry("widened", "[amount " + w.narrow() + " -> " + w.wide() + "]");
    Protocol p = t.latest().state.protocol;
    assertThat(p.minReaderVersion()).isEqualTo(3);
    assertThat(p.minWriterVersion()).isEqualTo(7);
    assertThat(p.readerFeatureList()).contains("typeWidening");
    assertThat(p.writerFeatureList()).contains("typeWidening");
    assertThat(p.supportsDeletionVectors()).as("no feature the table did not have").isEqualTo(deletionVectors);
    if (!deletionVectors) {
      assertThat(narrowProtocol).isEqualTo(Protocol.DEFAULT);
      assertThat(p.readerFeatureList()).containsExactly("typeWidening");
      assertThat(p.writerFeatureList()).containsExactlyInAnyOrder("appendOnly", "invariants", "typeWidening");
    }
    assertThat(t.properties()).containsEntry("delta.enableTypeWidening", "true");
    JsonNode amount = field(t.latest().state.metadata.schemaString(), "amount");
    assertThat(amount.path("type").asText()).isEqualTo(deltaType(w.wide()));
    JsonNode changes = amount.path("metadata").path("delta.typeChanges");
    assertThat(changes).hasSize(1);
    assertThat(changes.get(0).path("fromType").asText()).isEqualTo(deltaType(w.narrow()));
    assertThat(changes.get(0).path("toType").asText()).isEqualTo(deltaType(w.wide()));
    assertThat(DeltaTable.openOrCreate(table(), wide).latest().version()).as("no second commit")
        .isEqualTo(beforeWidening + 1);

    // a late event splits the closed version that lives in a file written before the widening; key 2 moves on
    t.newCommit(Operation.MERGE)
        .apply(upserts(row(1, 10, 15L, "Ann", w.before()), row(1, 15, 20L, "Ann A", w.onlyWide()),
        row(2, 10, 40L, "Bob", w.other()), row(2, 40, null, "Bob B", w.onlyWide()),
        row(3, 30, null, "Cy", w.onlyWide())));
    t.checkpoint();
    t.newCommit(Operation.MERGE).apply(upserts(row(4, 50, null, "Di", w.otherAsWide())));

    List<Version> expected = sorted(List.of(
        row(1, 10, 15L, "Ann", w.beforeAsWide()), row(1, 15, 20L, "Ann A", w.onlyWide()),
        row(1, 20, null, "Ann B", w.otherAsWide()), row(2, 10, 40L, "Bob", w.otherAsWide()),
        row(2, 40, null, "Bob B", w.onlyWide()), row(3, 30, null, "Cy", w.onlyWide()),
        row(4, 50, null, "Di", w.otherAsWide())));
    assertThat(scan(t.latest())).isEqualTo(expected);
    assertThat(t.latest().history(BusinessKey.of(1L))).containsExactly(row(1, 10, 15L, "Ann", w.beforeAsWide()),
        row(1, 15, 20L, "Ann A", w.onlyWide()), row(1, 20, null, "Ann B", w.otherAsWide()));
    assertThat(sorted(asOf(t.latest(), 12))).containsExactly(row(1, 10, 15L, "Ann", w.beforeAsWide()),
        row(2, 10, 40L, "Bob", w.otherAsWide()));
    assertThat(scan(t.snapshotAt(beforeWidening))).as("time travel to before the widening: the type then")
        .containsExactly(row(1, 10, 20L, "Ann", w.before()), row(1, 20, null, "Ann B", w.other()),
            row(2, 10, null, "Bob", w.other()));
    assertThat(DeltaTable.open(table()).latest().history(BusinessKey.of(2L))).as("a fresh reader, from the checkpoint")
        .containsExactly(row(2, 10, 40L, "Bob", w.otherAsWide()), row(2, 40, null, "Bob B", w.onlyWide()));
    assertKernelReadsEveryVersionAsWeDo(t, narrow, wide, beforeWidening);
    DeltaVersionTable queries = DeltaVersionTable.open(table());
    assertThat(TableVerifier.verify(queries.at(new TimeTravel.Latest())).ok()).as("verify").isTrue();
    assertThat(new HistoryQueries(queries.at(new TimeTravel.AtVersion(beforeWidening))).history(BusinessKey.of(1L)))
        .as("history as of a table version before the widening")
        .containsExactly(row(1, 10, 20L, "Ann", w.before()), row(1, 20, null, "Ann B", w.other()));
    assertThat(new HistoryQueries(queries.at(new TimeTravel.Latest())).changes(30, 45, Set.of()))
        .extracting(c -> c.after() == null ? null : c.after().attributes().get(1))
        .as("changes in [30, 45): key 3 opens, key 2 moves on")
        .containsExactlyInAnyOrder(w.onlyWide(), w.onlyWide());

    // maintenance reads the older files too and writes them in the wider type
    t.optimize();
    t.newCompaction().runFull();
    assertThat(scan(t.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(table(), wide))).isEqualTo(expected);
  }

  @Test
  void shouldMoveAWidenedCopyOnWriteTableToDeletionVectorsKeepingTypeWidening() throws IOException {
    DeltaTable t = DeltaTable.openOrCreate(table(), spec("v1.yaml", "int"),
        Map.of("delta.enableDeletionVectors", "false"), TableOptions.defaults());
    t.newCommit(Operation.WRITE).apply(upserts(row(1, 10, null, "Ann", 7)));
    DimensionSpec wide = spec("v2.yaml", "long");
    t = DeltaTable.openOrCreate(table(), wide);

    assertThat(t.upgradeToDeletionVectors()).isTrue();

    Protocol p = t.latest().state.protocol;
    assertThat(p.supportsDeletionVectors()).isTrue();
    assertThat(p.readerFeatureList()).containsExactlyInAnyOrder("typeWidening", "deletionVectors");
    assertThat(p.writerFeatureList())
        .containsExactlyInAnyOrder("appendOnly", "invariants", "typeWidening", "deletionVectors");
    t.newCommit(Operation.MERGE).apply(upserts(row(1, 10, 20L, "Ann", 7L), row(1, 20, null, "Ann B", 8_000_000_000L)));
    List<Version> expected = List.of(row(1, 10, 20L, "Ann", 7L), row(1, 20, null, "Ann B", 8_000_000_000L));
    assertThat(scan(t.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(table(), wide))).isEqualTo(expected);
  }

  @Test
  void shouldRefuseToReadAColumnAnotherEngineWidenedWithoutTheSpec() throws IOException {
    DeltaTable t = DeltaTable.openOrCreate(table(), spec("v1.yaml", "int"));
    t.newCommit(Operation.WRITE).apply(upserts(row(1, 10, null, "Ann", 7)));
    Metadata md = t.latest().state.metadata;
    String widened = md.schemaString().replace("\"name\":\"amount\",\"type\":\"integer\"",
        "\"name\":\"amount\",\"type\":\"long\"");
    assertThat(widened).isNotEqualTo(md.schemaString());
    long next = t.latest().version() + 1;
    Files.writeString(table().resolve("_delta_log").resolve(String.format("%020d.json", next)), ActionCodec.toJson(
        new Metadata(md.id(), md.name(), widened, md.partitionColumns(), md.configuration(), md.createdTime())) + "\n");

    assertThatThrownBy(() -> DeltaTable.open(table()).latest()).isInstanceOf(TableException.class)
        .hasMessageContaining("column 'amount' is long in the table's Delta schema but int in its 'dimstream.spec'")
        .hasMessageContaining("Fix:");
  }

  private void assertKernelReadsEveryVersionAsWeDo(DeltaTable t, DimensionSpec narrow, DimensionSpec wide,
      long beforeWidening) {
    for (long v = 0; v <= t.latest().version(); v++) {
      DimensionSpec spec = v <= beforeWidening ? narrow : wide;
      assertThat(sorted(KernelReader.atVersion(table(), spec, v))).as("table version %s", v)
          .isEqualTo(scan(t.snapshotAt(v)));
    }
  }

  private static List<Version> asOf(Snapshot s, long t) {
    try (Stream<Version> rows = s.asOf(Sequence.of(t))) {
      return new ArrayList<>(rows.toList());
    }
  }

  @Test
  void shouldRefuseANarrowingAScaleChangeAndAWideningOfTheKeyNamingTheFileTheFieldAndTheFix() throws IOException {
    DeltaTable.openOrCreate(table(), spec("v1.yaml", "decimal(12,2)"))
        .newCommit(Operation.WRITE).apply(upserts(row(1, 10, null, "Ann", new BigDecimal("1.50"))));
    long version = DeltaTable.open(table()).latest().version();

    for (String type : List.of("decimal(10,2)", "decimal(14,3)", "decimal(14,1)", "double", "long", "string")) {
      DimensionSpec changed = spec("changed.yaml", type);
      assertThatThrownBy(() -> DeltaTable.openOrCreate(table(), changed)).as(type)
          .isInstanceOf(TableException.class).hasMessageContaining("changed.yaml")
          .hasMessageContaining("field 'columns.amount'").hasMessageContaining(type + " in the spec but decimal(12,2)")
          .hasMessageContaining("Fix: keep 'amount: decimal(12,2)'");
    }
    Path narrowed = dir.resolve("narrowed");
    DeltaTable.openOrCreate(narrowed, spec("long.yaml", "long"));
    assertThatThrownBy(() -> DeltaTable.openOrCreate(narrowed, spec("int.yaml", "int")))
        .isInstanceOf(TableException.class).hasMessageContaining("field 'columns.amount'")
        .hasMessageContaining("int in the spec but long").hasMessageContaining("Fix:");

    assertThat(DeltaTable.open(table()).latest().version()).as("nothing was written").isEqualTo(version);
  }

  @Test
  void shouldRefuseWideningAKeyColumn() throws IOException {
    Path intKey = dir.resolve("int-key.yaml");
    Files.writeString(intKey, SPEC.formatted("long").replace("customer_id: long", "customer_id: int"));
    DeltaTable.openOrCreate(table(), DimensionSpecLoader.load(intKey));
    Path longKey = dir.resolve("long-key.yaml");
    Files.writeString(longKey, SPEC.formatted("long"));

    assertThatThrownBy(() -> DeltaTable.openOrCreate(table(), DimensionSpecLoader.load(longKey)))
        .isInstanceOf(TableException.class).hasMessageContaining("long-key.yaml")
        .hasMessageContaining("field 'columns.customer_id'").hasMessageContaining("key or sequence column")
        .hasMessageContaining("Fix:");
  }

  private static JsonNode field(String schemaString, String name) throws IOException {
    for (JsonNode f : new ObjectMapper().readTree(schemaString).path("fields")) {
      if (f.path("name").asText().equals(name)) {
        return f;
      }
    }
    throw new AssertionError("no field " + name + " in " + schemaString);
  }

  private static String deltaType(String specType) {
    return switch (specType) {
      case "int" -> "integer";
      default -> specType;
    };
  }
}
