package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TablePropertiesSpecTest {
  private static final String BASE = """
      name: customers
      columns: {customer_id: long, city: string, updated_at: timestamp}
      key: [customer_id]
      sequence: [updated_at]
      """;

  @TempDir
  Path dir;

  private Path write(String yaml) throws IOException {
    return Files.writeString(dir.resolve("customers.yaml"), yaml);
  }

  @Test
  void shouldSetNoTablePropertyWhenTheSpecGivesNone() throws IOException {
    assertThat(DimensionSpecLoader.load(write(BASE)).tableProperties()).isEmpty();
  }

  @Test
  void shouldReadTablePropertiesAsTextWhetherYamlQuotesThemOrNot() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write(BASE + """
        output:
          table_properties:
            delta.enableDeletionVectors: false
            dimstream.compaction.deletedFraction: 0.5
            dimstream.compaction.smallFileRows: "5000"
            dimstream.compaction.rowsPerCycle: 100000
            delta.deletedFileRetentionDuration: interval 2 days
        """));

    assertThat(spec.tableProperties()).containsExactlyInAnyOrderEntriesOf(Map.of(
        "delta.enableDeletionVectors", "false",
        "dimstream.compaction.deletedFraction", "0.5",
        "dimstream.compaction.smallFileRows", "5000",
        "dimstream.compaction.rowsPerCycle", "100000",
        "delta.deletedFileRetentionDuration", "interval 2 days"));
    assertThat(spec.output()).isEqualTo(OutputColumns.DEFAULT);
  }

  @Test
  void shouldLoadTheReadmesCopyOnWriteSnippetOfTheTableSection() throws IOException {
    String section = Files.readString(Path.of("docs/reference/table-format.md"));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("```yaml\n(output:\n  table_properties:.*?)```",
        java.util.regex.Pattern.DOTALL).matcher(section);
    assertThat(m.find()).as("the table section shows output.table_properties").isTrue();

    DimensionSpec spec = DimensionSpecLoader.load(write(BASE + m.group(1)));

    assertThat(spec.tableProperties()).containsExactly(Map.entry("delta.enableDeletionVectors", "false"));
  }

  @Test
  void shouldKeepTablePropertiesWhenTheCommandLineOverridesServiceSettings() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write(BASE
        + "output: {table_properties: {delta.enableDeletionVectors: \"false\"}}\n"));

    DimensionSpec moved = spec.withService(spec.service().withTablePath(dir.resolve("elsewhere")));

    assertThat(moved.tableProperties()).containsExactly(Map.entry("delta.enableDeletionVectors", "false"));
  }

  @Test
  void shouldValidateTablePropertiesGivenThroughTheBuilderToo() {
    assertThatThrownBy(() -> DimensionSpec.builder("customers").column("customer_id", "long")
        .column("updated_at", "timestamp").key("customer_id").sequence("updated_at")
        .tableProperties(Map.of("delta.enableDeletionVectors", "maybe")).build())
        .isInstanceOf(SpecException.class)
        .hasMessageContaining("field 'output.table_properties.delta.enableDeletionVectors'")
        .hasMessageContaining("true or false");
  }

  static Stream<Arguments> badProperties() {
    return Stream.of(
        bad("unknown name", "{delta.enableDeletionVector: false}", "output.table_properties.delta.enableDeletionVector",
            "delta.deletedFileRetentionDuration, delta.enableChangeDataFeed, delta.enableDeletionVectors, "
                + "dimstream.buckets"),
        bad("another engine's property", "{delta.enableRowTracking: true}",
            "output.table_properties.delta.enableRowTracking", "dimstream.compaction.rowsPerCycle"),
        bad("not a boolean", "{delta.enableDeletionVectors: off-please}",
            "output.table_properties.delta.enableDeletionVectors", "give true or false"),
        bad("fraction above 1", "{dimstream.compaction.deletedFraction: 1.5}",
            "output.table_properties.dimstream.compaction.deletedFraction", "a fraction above 0 and at most 1"),
        bad("zero rows", "{dimstream.compaction.smallFileRows: 0}",
            "output.table_properties.dimstream.compaction.smallFileRows", "a positive whole number"),
        bad("rows as words", "{dimstream.compaction.rowsPerCycle: many}",
            "output.table_properties.dimstream.compaction.rowsPerCycle", "a positive whole number"),
        bad("unknown codec", "{dimstream.codec: lz4}", "output.table_properties.dimstream.codec", "zstd, snappy"),
        bad("retention without interval", "{delta.deletedFileRetentionDuration: 7d}",
            "output.table_properties.delta.deletedFileRetentionDuration", "interval <n>"),
        bad("a list, not a mapping", "[delta.enableDeletionVectors]", "output.table_properties",
            "delta.enableDeletionVectors: \\\"false\\\""),
        bad("a nested value", "{delta.enableDeletionVectors: {value: false}}",
            "output.table_properties.delta.enableDeletionVectors", "give the value as text"));
  }

  private static Arguments bad(String name, String properties, String field, String fix) {
    return Arguments.of(name, properties, field, fix);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badProperties")
  void shouldRefuseABadTablePropertyNamingFileFieldAndWhatIsAllowed(String name, String properties, String field,
      String fix) throws IOException {
    Path file = write(BASE + "output: {table_properties: " + properties + "}\n");

    assertThatThrownBy(() -> DimensionSpecLoader.load(file))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith(file + ": field '" + field + "': ")
        .hasMessageContaining("Fix: ")
        .hasMessageContaining(fix.replace("\\\"", "\""));
  }
}
