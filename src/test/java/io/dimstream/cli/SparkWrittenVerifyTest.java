package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.fixtures.SparkWrittenTables;
import java.io.IOException;
import java.nio.file.Files;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code table verify} on tables Spark wrote to: every version of each holds the SCD2 invariants. */
class SparkWrittenVerifyTest {
  static Stream<String> fixtures() {
    return Stream.of("base", "dv-delete", "dv-update", "int96-optimize", "optimize-micros", "checkpoint-nostats");
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void shouldVerifyEveryVersionOfASparkWrittenTable(String name) throws IOException {
    String table = SparkWrittenTables.table(name).toString();
    long rows;
    try (Stream<String> lines = Files.lines(SparkWrittenTables.expectedRows(name))) {
      rows = lines.filter(l -> !l.isBlank()).count();
    }
    QueryCommandTest.Run latest = QueryCommandTest.run(new TableCommand(), "verify", "--table", table);
    assertThat(latest.code()).as(latest.out() + latest.err()).isZero();
    assertThat(latest.out()).startsWith("OK: table version").contains(" " + rows + " versions of ");
    long versions;
    try (Stream<java.nio.file.Path> files = Files.list(SparkWrittenTables.table(name).resolve("_delta_log"))) {
      versions = files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json")).count();
    }
    assertThat(versions).isGreaterThan(1);
    for (long v = 1; v < versions; v++) {
      QueryCommandTest.Run old = QueryCommandTest.run(new TableCommand(), "verify", "--table", table, "--version",
          Long.toString(v));
      assertThat(old.code()).as(old.out() + old.err()).isZero();
      assertThat(old.out()).startsWith("OK: table version " + v);
    }
  }
}
