package io.dimstream.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Postgres types (as format_type prints them) onto the column types that read what the connector writes. */
class PostgresColumnTypesTest {
  static Stream<Arguments> types() {
    return Stream.of(
        arguments("integer", "b", "int"),
        arguments("smallint", "b", "int"),
        arguments("bigint", "b", "long"),
        arguments("numeric(12,2)", "b", "decimal(12,2)"),
        arguments("numeric(60,2)", "b", "string"),
        arguments("numeric", "b", "string"),
        arguments("double precision", "b", "double"),
        arguments("boolean", "b", "boolean"),
        arguments("character varying(40)", "b", "string"),
        arguments("character(3)", "b", "string"),
        arguments("text", "b", "string"),
        arguments("jsonb", "b", "string"),
        arguments("mood", "e", "string"),
        arguments("date", "b", "date"),
        arguments("timestamp without time zone", "b", "timestamp"),
        arguments("timestamp(3) with time zone", "b", "timestamp"),
        arguments("bytea", "b", null),
        arguments("integer[]", "b", null),
        arguments("interval", "b", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("types")
  void shouldMapThePostgresTypeOntoAColumnType(String formatted, String typtype, String expected) {
    assertThat(PostgresCatalog.dimensionType(formatted, typtype)).isEqualTo(expected);
  }
}
