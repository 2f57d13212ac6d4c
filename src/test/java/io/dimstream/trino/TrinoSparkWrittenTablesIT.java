package io.dimstream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.fixtures.SparkWrittenTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shared fixture tables that Spark 4.0 + Delta 4.0 wrote on a dimstream table (deletion vectors in DV files,
 * INT96 timestamps after OPTIMIZE, a checkpoint without statistics, ...), read in place by a real Trino 476: its rows
 * are the rows Spark reads from each.
 */
class TrinoSparkWrittenTablesIT {
  static List<String> names() {
    return SparkWrittenTables.names().toList();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("names")
  void shouldReadTheRowsSparkReadsFromTheFixtureTable(String fixture) {
    TrinoServer trino = TrinoServer.shared();
    String name = TrinoChecks.register(trino, "delta", TrinoChecks.location(SparkWrittenTables.table(fixture)));

    List<String> rows = new ArrayList<>();
    for (Map<String, Object> row : TrinoRows.query(trino, "SELECT * FROM " + name)) {
      Map<String, String> text = new TreeMap<>();
      row.forEach((column, value) -> text.put(column, String.valueOf(value)));
      rows.add(text.toString());
    }
    assertThat(rows).as("Trino's rows of %s", fixture)
        .containsExactlyInAnyOrderElementsOf(SparkWrittenTables.normalizedRows(fixture));
  }
}
