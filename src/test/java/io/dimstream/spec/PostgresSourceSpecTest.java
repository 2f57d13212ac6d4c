package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The {@code source: postgres:} section: the URL or its parts, the table, the options, and precise refusals. */
class PostgresSourceSpecTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Path FILE = Path.of("customers.yaml");

  private static PostgresSource parse(String yaml) throws Exception {
    return PostgresSource.parse(YAML.readTree(yaml).get("source"), "customers", FILE);
  }

  @Test
  void shouldReadTheIssueExampleAsIs() throws Exception {
    PostgresSource s = parse("""
        source:
          postgres:
            url: postgresql://dimstream:secret@127.0.0.1:5432/shop   # or host/port/database/user/password
            table: public.customers
        """);

    assertThat(s).isEqualTo(new PostgresSource("127.0.0.1", 5432, "shop", "dimstream", "secret", "public",
        "customers", "dimstream_customers", "dimstream_customers", PostgresSource.Snapshot.INITIAL, Map.of()));
    assertThat(s.toString()).doesNotContain("secret");
  }

  @Test
  void shouldReadThePartsAndTheOptions() throws Exception {
    PostgresSource s = parse("""
        source:
          postgres:
            host: db.internal
            database: shop
            user: cdc
            password: "p@ss:word"
            table: customers
            slot: shop_customers
            publication: shop_pub
            snapshot: never
            properties: {heartbeat.interval.ms: 10000}
        """);

    assertThat(s).isEqualTo(new PostgresSource("db.internal", 5432, "shop", "cdc", "p@ss:word", "public",
        "customers", "shop_customers", "shop_pub", PostgresSource.Snapshot.NEVER,
        Map.of("heartbeat.interval.ms", "10000")));
  }

  @Test
  void shouldDecodeAnEscapedPasswordInTheUrl() throws Exception {
    assertThat(parse("source: {postgres: {url: 'postgres://u:p%40ss@localhost:6543/db', table: s.t}}"))
        .extracting(PostgresSource::password, PostgresSource::port, PostgresSource::schema, PostgresSource::table)
        .containsExactly("p@ss", 6543, "s", "t");
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        arguments("another database", "source: {mysql: {url: x}}", "field 'source'", "'postgres'"),
        arguments("no table", "source: {postgres: {url: 'postgresql://u:p@h/db'}}", "source.postgres.table",
            "table: public.customers"),
        arguments("no database", "source: {postgres: {url: 'postgresql://u:p@h', table: t}}",
            "source.postgres.database", "/<database>"),
        arguments("no user", "source: {postgres: {url: 'postgresql://h/db', table: t}}", "source.postgres.user",
            "user:password@"),
        arguments("a jdbc url of another database", "source: {postgres: {url: 'mysql://u:secret@h/db', table: t}}",
            "not a postgresql:// URL", "u:***@"),
        arguments("a typo", "source: {postgres: {url: 'postgresql://u@h/db', table: t, slots: x}}",
            "source.postgres.slots", "unknown field"),
        arguments("a bad snapshot mode", "source: {postgres: {url: 'postgresql://u@h/db', table: t, snapshot: always}}",
            "source.postgres.snapshot", "initial"),
        arguments("a bad slot name", "source: {postgres: {url: 'postgresql://u@h/db', table: t, slot: My-Slot}}",
            "source.postgres.slot", "lower-case"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void shouldRefuseWithTheFieldAndTheFix(String name, String yaml, String field, String fix) {
    assertThatThrownBy(() -> parse(yaml)).isInstanceOf(SpecException.class)
        .hasMessageContaining(field).hasMessageContaining(fix).message().doesNotContain("secret");
  }

  @Test
  void shouldLoadASpecWithASourceAndItsColumnsGiven() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.parse(YAML.readTree("""
        name: customers
        source: {postgres: {url: 'postgresql://u:p@127.0.0.1/shop', table: public.customers}}
        format: debezium-json
        columns: {id: int, city: string}
        key: [id]
        sequence: [source.sequence]
        """), FILE);

    assertThat(spec.sequence()).containsExactly("source.sequence.0", "source.sequence.1");
    assertThat(spec.inputFormat()).isEqualTo(InputFormat.DEBEZIUM_JSON);
  }
}
