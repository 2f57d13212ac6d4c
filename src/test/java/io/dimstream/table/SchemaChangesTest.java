package io.dimstream.table;

import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.StateLayouts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A spec that changes between runs: what the table follows in one commit, and what it refuses (file, field, fix). */
class SchemaChangesTest {
  private static final String BASE = """
      name: customers
      columns: {customer_id: long, name: string, city: string, seq: long}
      key: [customer_id]
      sequence: [seq]
      """;

  @TempDir
  Path dir;

  private DimensionSpec spec(String fileName, String yaml) throws IOException {
    Path file = dir.resolve(fileName);
    Files.writeString(file, yaml);
    return DimensionSpecLoader.load(file);
  }

  private Path table() {
    return dir.resolve("table");
  }

  private DeltaTable tableWithOneVersion() throws IOException {
    DeltaTable t = DeltaTable.openOrCreate(table(), spec("v1.yaml", BASE + "track: [city]\n"));
    t.newCommit(Operation.WRITE)
        .apply(upserts(new Version(BusinessKey.of(1L), Sequence.of(10), null, Arrays.asList("Ann", "Oslo"))));
    return t;
  }

  @Test
  void shouldAddAColumnAndMoveTrackingInOneCommitThatOlderVersionsReadAsNull() throws IOException {
    long before = tableWithOneVersion().latest().version();
    DimensionSpec v2 = spec("v2.yaml", """
        name: customers
        columns: {customer_id: long, name: string, city: string, tier: string, seq: long}
        key: [customer_id]
        sequence: [seq]
        track: [name, tier]
        """);

    DeltaTable t = DeltaTable.openOrCreate(table(), v2);

    assertThat(t.latest().version()).isEqualTo(before + 1);
    CommitSummary commit = t.history().get(0);
    assertThat(commit.operation()).isEqualTo("ADD COLUMNS");
    assertThat(commit.operationParameters()).containsEntry("columns", "[tier]")
        .containsEntry("nowTracked", "[name]").containsEntry("noLongerTracked", "[city]");
    assertThat(t.spec().tracked()).containsExactlyInAnyOrder("name", "tier");
    Version old = new Version(BusinessKey.of(1L), Sequence.of(10), null, Arrays.asList("Ann", "Oslo", null));
    assertThat(sorted(KernelReader.latest(table(), v2))).isEqualTo(List.of(old));
    assertThat(DeltaTable.openOrCreate(table(), v2).latest().version()).as("no second commit").isEqualTo(before + 1);
  }

  @Test
  void shouldWidenAColumnAndAddAnotherInOneCommitThatOlderVersionsReadAsTheWiderType() throws IOException {
    DeltaTable first = DeltaTable.openOrCreate(table(), spec("v1.yaml", BASE.replace("city: string", "visits: int")));
    first.newCommit(Operation.WRITE)
        .apply(upserts(new Version(BusinessKey.of(1L), Sequence.of(10), null, Arrays.asList("Ann", 3))));
    long before = first.latest().version();
    DimensionSpec v2 = spec("v2.yaml", """
        name: customers
        columns: {customer_id: long, name: string, visits: long, tier: string, seq: long}
        key: [customer_id]
        sequence: [seq]
        """);

    DeltaTable t = DeltaTable.openOrCreate(table(), v2);

    assertThat(t.latest().version()).isEqualTo(before + 1);
    CommitSummary commit = t.history().get(0);
    assertThat(commit.operation()).isEqualTo("ADD COLUMNS");
    assertThat(commit.operationParameters()).containsEntry("columns", "[tier]")
        .containsEntry("widened", "[visits int -> long]");
    assertThat(t.properties()).containsEntry("delta.enableTypeWidening", "true");
    t.newCommit(Operation.MERGE)
        .apply(upserts(new Version(BusinessKey.of(2L), Sequence.of(20), null, Arrays.asList("Bob", 4_000_000_000L,
        "gold"))));
    List<Version> expected = List.of(new Version(BusinessKey.of(1L), Sequence.of(10), null, Arrays.asList("Ann", 3L,
        null)), new Version(BusinessKey.of(2L), Sequence.of(20), null, Arrays.asList("Bob", 4_000_000_000L, "gold")));
    assertThat(Versions.scan(t.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(table(), v2))).isEqualTo(expected);
  }

  @Test
  void shouldRefuseAKeyChangeNamingTheFileTheFieldAndTheFix() throws IOException {
    tableWithOneVersion();
    DimensionSpec rekeyed = spec("rekeyed.yaml", BASE.replace("key: [customer_id]", "key: [customer_id, name]"));

    assertThatThrownBy(() -> DeltaTable.openOrCreate(table(), rekeyed)).isInstanceOf(TableException.class)
        .hasMessageContaining("rekeyed.yaml").hasMessageContaining("field 'key'")
        .hasMessageContaining("[customer_id, name]").hasMessageContaining("Fix:");
  }

  @Test
  void shouldRecordEachEarlierAttributeOrderForTheStateOfARunningService() throws IOException {
    tableWithOneVersion();
    DimensionSpec tier = spec("tier.yaml", BASE.replace("name: string,", "tier: string, name: string,"));
    DimensionSpec tierAndSize = spec("size.yaml", BASE.replace("name: string,", "tier: string, name: string,")
        .replace("seq: long", "size: long, seq: long"));
    DimensionSpec tracking = spec("tracking.yaml", BASE.replace("name: string,", "tier: string, name: string,")
        .replace("seq: long", "size: long, seq: long") + "track: [size]\n");

    DeltaTable.openOrCreate(table(), tier);
    DeltaTable.openOrCreate(table(), tierAndSize);
    DeltaTable t = DeltaTable.openOrCreate(table(), tracking);

    // the columns each spec held before it gained some, in order; a change of tracking alone adds none
    assertThat(t.properties()).containsEntry(StateLayouts.PROPERTY,
        "[[\"name\",\"city\"],[\"tier\",\"name\",\"city\"]]");
    assertThat(t.history().get(0).operation()).isEqualTo("SET TBLPROPERTIES");
  }

  @Test
  void shouldRefuseAReorderOfTheAttributeColumnsNamingTheFix() throws IOException {
    tableWithOneVersion();
    DimensionSpec reordered = spec("reordered.yaml", BASE.replace("name: string, city: string",
        "city: string, name: string"));

    assertThatThrownBy(() -> DeltaTable.openOrCreate(table(), reordered)).isInstanceOf(TableException.class)
        .hasMessageContaining("reordered.yaml").hasMessageContaining("[city, name]")
        .hasMessageContaining("[name, city]").hasMessageContaining("Fix: keep the columns in the table's order");
  }

  @Test
  void shouldRefuseADroppedColumnAndANarrowedType() throws IOException {
    tableWithOneVersion();
    DimensionSpec dropped = spec("dropped.yaml", BASE.replace(" city: string,", ""));
    DimensionSpec retyped = spec("retyped.yaml", BASE.replace("name: string", "name: int"));

    assertThatThrownBy(() -> DeltaTable.openOrCreate(table(), dropped)).isInstanceOf(TableException.class)
        .hasMessageContaining("dropped.yaml").hasMessageContaining("'city'").hasMessageContaining("Fix:");
    assertThatThrownBy(() -> DeltaTable.openOrCreate(table(), retyped)).isInstanceOf(TableException.class)
        .hasMessageContaining("retyped.yaml").hasMessageContaining("'columns.name'").hasMessageContaining("Fix:");
  }

  @Test
  void shouldRefuseAddingAVersionIdToATableWithVersions() throws IOException {
    tableWithOneVersion();
    DimensionSpec withId = spec("with-id.yaml", BASE + "track: [city]\noutput: {version_id: version_sk}\n");

    assertThatThrownBy(() -> DeltaTable.openOrCreate(table(), withId)).isInstanceOf(TableException.class)
        .hasMessageContaining("with-id.yaml").hasMessageContaining("field 'output'")
        .hasMessageContaining("version_id: version_sk").hasMessageContaining("backfill");
  }
}
