package io.dimstream.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.table.Protocols;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What a user of Spark checks on a dimstream table: rows, a partition filter, detail, history, time travel. */
public final class SparkChecks {
  private SparkChecks() {}

  /** The SQL name of the table at {@code table}. */
  public static String delta(Path table) {
    return "delta.`" + table.toAbsolutePath() + "`";
  }

  public static List<Version> sorted(List<Version> rows) {
    List<Version> out = new ArrayList<>(rows);
    out.sort(BusinessKeys.VERSION_ORDER);
    return out;
  }

  /** Spark's {@code SELECT *} of the latest version, as versions. */
  public static List<Version> read(Path table, DimensionSpec spec) {
    return SparkRows.versions(SparkProcess.shared().sql("SELECT * FROM " + delta(table)), spec);
  }

  /**
   * Spark and Delta Kernel read the latest version as {@code expected}; Spark's {@code is_current} partition filter
   * gives its current rows; DESCRIBE DETAIL shows the table's protocol, partitioning and live files; DESCRIBE HISTORY
   * has every commit with dimstream's operation and its metrics; and time travel to {@code earlier} reads what
   * Kernel reads there.
   */
  public static void assertReads(Path table, DimensionSpec spec, List<Version> expected, long earlier) {
    SparkProcess spark = SparkProcess.shared();
    String name = delta(table);
    assertThat(read(table, spec)).as("Spark SELECT * of %s", table).containsExactlyElementsOf(sorted(expected));
    assertThat(sorted(KernelReader.latest(table, spec))).as("Kernel").containsExactlyElementsOf(sorted(expected));

    String isCurrent = spec.output().isCurrent();
    List<Version> current = SparkRows.versions(spark.sql("SELECT * FROM " + name + " WHERE " + isCurrent), spec);
    assertThat(current).as("WHERE %s", isCurrent)
        .containsExactlyElementsOf(sorted(expected.stream().filter(Version::isCurrent).toList()));

    DeltaTable ours = DeltaTable.open(table);
    JsonNode detail = spark.sql("DESCRIBE DETAIL " + name).get(0);
    assertThat(detail.path("format").asText()).isEqualTo("delta");
    assertThat(detail.path("partitionColumns").toString()).isEqualTo("[\"" + isCurrent + "\"]");
    assertThat(detail.path("numFiles").asLong()).isEqualTo(ours.latest().fileCount());
    assertThat(detail.path("minReaderVersion").asInt()).isEqualTo(Protocols.latest(ours).minReaderVersion());
    assertThat(detail.path("minWriterVersion").asInt()).isEqualTo(Protocols.latest(ours).minWriterVersion());
    if (ours.mergeOnRead()) {
      assertThat(detail.path("tableFeatures").toString()).contains("deletionVectors", "invariants");
    }

    List<JsonNode> history = spark.sql("DESCRIBE HISTORY " + name);
    List<CommitSummary> commits = ours.history();
    assertThat(history).extracting(h -> h.path("version").asLong())
        .containsExactlyElementsOf(commits.stream().map(CommitSummary::version).toList());
    for (int i = 0; i < commits.size(); i++) {
      CommitSummary c = commits.get(i);
      JsonNode h = history.get(i);
      assertThat(h.path("operation").asText()).as("operation of version %d", c.version()).isEqualTo(c.operation());
      for (var m : c.operationMetrics().entrySet()) {
        assertThat(h.path("operationMetrics").path(m.getKey()).asText())
            .as("metric %s of version %d", m.getKey(), c.version()).isEqualTo(m.getValue());
      }
    }
    assertThat(commits).as("some commit has operation metrics")
        .anyMatch(c -> !c.operationMetrics().isEmpty());

    List<Version> then = SparkRows.versions(spark.sql("SELECT * FROM " + name + " VERSION AS OF " + earlier), spec);
    assertThat(then).as("time travel to version %d", earlier)
        .containsExactlyElementsOf(sorted(KernelReader.atVersion(table, spec, earlier)));
  }
}
