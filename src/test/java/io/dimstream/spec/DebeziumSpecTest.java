package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The spec's Debezium ordering: source fields as sequence, per-connector defaults, and specs that cannot work. */
class DebeziumSpecTest {
  private static final String HEAD = """
      name: customers
      columns: {customer_id: long, city: string}
      key: [customer_id]
      """;

  @TempDir
  Path dir;

  private DimensionSpec load(String yaml) throws IOException {
    Path file = dir.resolve("customers.yaml");
    Files.writeString(file, yaml);
    return DimensionSpecLoader.load(file);
  }

  static Stream<Arguments> connectorDefaults() {
    return Stream.of(
        arguments("postgresql", new String[] {"source.lsn"}),
        arguments("mysql", new String[] {"source.file", "source.pos", "source.row"}),
        arguments("sqlserver", new String[] {"source.commit_lsn", "source.change_lsn", "source.event_serial_no"}),
        arguments("oracle", new String[] {"source.commit_scn", "source.scn"}),
        arguments("mongodb", new String[] {"source.ts_ms", "source.ord"}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("connectorDefaults")
  void shouldOrderByTheConnectorsCommitPositionByDefault(String connector, String[] sequence) throws IOException {
    DimensionSpec spec = load(HEAD + "format: debezium-json\ndebezium: {connector: " + connector + "}\n");

    assertThat(spec.sequence()).containsExactly(sequence);
    assertThat(spec.attributeColumns()).extracting(Column::name).containsExactly("city");
  }

  @Test
  void shouldReadSourceFieldsWithTheirImpliedTypesAndNameValidityColumnsWithoutDots() throws IOException {
    DimensionSpec spec = load(HEAD + "format: debezium-json\ndebezium: {connector: mongodb}\n");

    assertThat(spec.column("source.ts_ms").type()).isEqualTo(ColumnType.TIMESTAMP);
    assertThat(spec.column("source.ord").type()).isEqualTo(ColumnType.LONG);
    assertThat(spec.extraValidFromColumns()).containsExactly("valid_from_source_ord");
    assertThat(spec.extraValidToColumns()).containsExactly("valid_to_source_ord");
  }

  @Test
  void shouldAcceptADeclaredSourceTimestampAsTheSequence() throws IOException {
    DimensionSpec spec = load("""
        name: customers
        format: debezium-json
        columns: {customer_id: long, city: string, source.ts_ms: timestamp}
        key: [customer_id]
        sequence: [source.ts_ms]
        lateness_horizon: 7d
        """);

    assertThat(spec.sequence()).containsExactly("source.ts_ms");
    assertThat(spec.latenessHorizon()).isEqualTo(7L * 24 * 3600 * 1_000_000);
  }

  @Test
  void shouldLetAnExplicitSequenceOverrideTheConnectorDefault() throws IOException {
    DimensionSpec spec = load(HEAD + "format: debezium-json\ndebezium: {connector: postgresql}\n"
        + "sequence: [source.ts_ms, source.lsn]\n");

    assertThat(spec.sequence()).containsExactly("source.ts_ms", "source.lsn");
  }

  @Test
  void shouldLoadTheReadmesCommitOrderExample() throws IOException {
    String readme = Files.readString(Path.of("docs/reference/formats.md"));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("```yaml\n([^`]*debezium: \\{connector: mysql\\}[^`]*)```")
        .matcher(readme);
    assertThat(m.find()).as("the record formats reference's Debezium commit-order example").isTrue();

    DimensionSpec spec = load(m.group(1));

    assertThat(spec.sequence()).containsExactly("source.file", "source.pos", "source.row");
    assertThat(spec.tracked()).containsExactly("city", "tier");
  }

  static Stream<Arguments> specsThatCannotWork() {
    return Stream.of(
        arguments("debezium option on a json topic", HEAD + "sequence: [city]\ndebezium: {connector: mysql}\n",
            "field 'debezium'", "set 'format: debezium-json'"),
        arguments("unknown connector", HEAD + "format: debezium-json\ndebezium: {connector: db9}\n",
            "field 'debezium.connector'", "[mariadb, mongodb, mysql, oracle, postgresql, sqlserver]"),
        arguments("connector as a bare word", HEAD + "format: debezium-json\ndebezium: postgresql\n",
            "field 'debezium'", "debezium: {connector: postgresql}"),
        arguments("unknown debezium option", HEAD + "format: debezium-json\ndebezium: {connector: mysql, order: x}\n",
            "field 'debezium.order'", "unknown field"),
        arguments("no sequence and no connector", HEAD + "format: debezium-json\n",
            "field 'sequence'", "debezium: {connector:"),
        arguments("a source column that is not the sequence", """
            name: customers
            format: debezium-json
            columns: {customer_id: long, source.ts_ms: timestamp, ts_ms: timestamp}
            key: [customer_id]
            sequence: [ts_ms]
            """, "field 'columns.source.ts_ms'", "null in every event"),
        arguments("a source column declared with another type", """
            name: customers
            format: debezium-json
            columns: {customer_id: long, source.lsn: timestamp}
            key: [customer_id]
            sequence: [source.lsn]
            """, "field 'columns.source.lsn'", "is read as a long"),
        arguments("a time horizon on an LSN", HEAD + "format: debezium-json\ndebezium: {connector: postgresql}\n"
            + "lateness_horizon: 30d\n", "field 'lateness_horizon'", "is a number"),
        arguments("a source field on a json topic", HEAD + "sequence: [source.ts_ms]\n",
            "field 'sequence'", "'source.ts_ms' is not declared"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("specsThatCannotWork")
  void shouldRefuseASpecThatCannotWorkNamingFileFieldAndFix(String name, String yaml, String field, String fix) {
    assertThatThrownBy(() -> load(yaml))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith(dir.resolve("customers.yaml").toString())
        .hasMessageContaining(field)
        .hasMessageContaining(fix)
        .hasMessageContaining("Fix:");
  }
}
