package io.dimstream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.interop.SparkChecks;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a user of Trino checks on a dimstream table: the table registered in the file metastore
 * ({@code system.register_table}), then {@code SELECT *}, the current rows, an as-of question on
 * {@code valid_from}/{@code valid_to}, time travel ({@code FOR VERSION AS OF}) and the {@code $history} table.
 */
public final class TrinoChecks {
  private static final String SCHEMA = "dimstream";
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")
      .withZone(ZoneOffset.UTC);

  private TrinoChecks() {}

  /** The file URI of a local table, as Trino's local file system takes it. */
  public static String location(Path table) {
    return table.toAbsolutePath().toUri().toString();
  }

  /**
   * Registers the table at {@code location} (a {@code file:///} or {@code s3://} URI) in {@code catalog} under a
   * new name; returns its qualified name.
   */
  public static String register(TrinoServer trino, String catalog, String location) {
    String name = "t" + TABLES.incrementAndGet();
    try {
      trino.execute("CREATE SCHEMA IF NOT EXISTS " + catalog + "." + SCHEMA);
      trino.execute("CALL " + catalog + ".system.register_table(schema_name => '" + SCHEMA + "', table_name => '"
          + name + "', table_location => '" + location + "')");
    } catch (SQLException e) {
      throw new IllegalStateException("Trino refused to register " + location + ": " + e.getMessage(), e);
    }
    return catalog + "." + SCHEMA + "." + name;
  }

  /**
   * Trino reads the latest version of the table registered as {@code name} as {@code expected}; its current rows
   * are the open versions; an as-of question at three points of time gives the versions valid then
   * ({@code valid_from <= t < valid_to}, an open version from its start on); {@code FOR VERSION AS OF earlier} reads
   * {@code atEarlier}; and {@code $history} lists every commit of {@code commits} with its operation and metrics.
   */
  public static void assertReads(TrinoServer trino, String name, DimensionSpec spec, List<Version> reference,
      long earlier, List<Version> atEarlierReference, List<CommitSummary> history) {
    List<CommitSummary> commits = history.stream().sorted(Comparator.comparingLong(CommitSummary::version)).toList();
    List<Version> expected = asTrinoReads(reference, spec);
    List<Version> atEarlier = asTrinoReads(atEarlierReference, spec);
    assertThat(TrinoRows.versions(trino, "SELECT * FROM " + name, spec)).as("Trino SELECT * of %s", name)
        .containsExactlyElementsOf(SparkChecks.sorted(expected));

    String isCurrent = spec.output().isCurrent();
    assertThat(TrinoRows.versions(trino, "SELECT * FROM " + name + " WHERE " + isCurrent, spec))
        .as("WHERE %s", isCurrent)
        .containsExactlyElementsOf(SparkChecks.sorted(expected.stream().filter(Version::isCurrent).toList()));

    ColumnType seq = TableLayout.sequenceTableType(spec.sequenceColumns().get(0).type());
    String from = spec.output().validFrom();
    String to = spec.output().validTo();
    for (long t : asOfPoints(expected)) {
      String literal = literal(t, seq);
      List<Version> valid = expected.stream().filter(v -> v.validAt(t)).toList();
      assertThat(valid).as("versions valid at %s", literal).isNotEmpty();
      assertThat(TrinoRows.versions(trino, "SELECT * FROM " + name + " WHERE " + from + " <= " + literal
          + " AND (" + to + " IS NULL OR " + to + " > " + literal + ")", spec))
          .as("as of %s", literal).containsExactlyElementsOf(SparkChecks.sorted(valid));
    }

    assertThat(TrinoRows.versions(trino, "SELECT * FROM " + name + " FOR VERSION AS OF " + earlier, spec))
        .as("time travel to version %d", earlier).containsExactlyElementsOf(SparkChecks.sorted(atEarlier));

    String historyTable = name.substring(0, name.lastIndexOf('.') + 1) + "\"" + name.substring(name.lastIndexOf('.') + 1)
        + "$history\"";
    List<Map<String, Object>> rows = TrinoRows.query(trino,
        "SELECT version, operation, operation_metrics FROM " + historyTable + " ORDER BY version");
    assertThat(rows).extracting(r -> ((Number) r.get("version")).longValue()).as("$history versions")
        .containsExactlyElementsOf(commits.stream().map(CommitSummary::version).toList());
    for (int i = 0; i < commits.size(); i++) {
      CommitSummary c = commits.get(i);
      Map<String, Object> h = rows.get(i);
      assertThat(h.get("operation")).as("operation of version %d", c.version()).isEqualTo(c.operation());
      @SuppressWarnings("unchecked")
      Map<String, String> metrics = (Map<String, String>) h.get("operation_metrics");
      assertThat(metrics).as("metrics of version %d", c.version()).containsAllEntriesOf(c.operationMetrics());
    }
    assertThat(commits).as("some commit has operation metrics").anyMatch(c -> !c.operationMetrics().isEmpty());
  }

  /**
   * {@code versions} as Trino reads them: Trino 476 reads Delta's {@code timestamp} (microseconds) as
   * {@code timestamp(3) with time zone}, each value rounded to the nearest millisecond (a half up). Every other
   * value is read as written.
   */
  public static List<Version> asTrinoReads(List<Version> versions, DimensionSpec spec) {
    List<Boolean> timestampAttribute = spec.attributeColumns().stream()
        .map(c -> c.type().kind() == ColumnType.Kind.TIMESTAMP).toList();
    List<Version> out = new ArrayList<>();
    for (Version v : versions) {
      List<Object> attributes = new ArrayList<>(v.attributes());
      for (int i = 0; i < attributes.size(); i++) {
        if (timestampAttribute.get(i) && attributes.get(i) != null) {
          Instant t = (Instant) attributes.get(i);
          long micros = ChronoUnit.MICROS.between(Instant.EPOCH, t);
          attributes.set(i, Instant.EPOCH.plus(toMillis(micros), ChronoUnit.MICROS));
        }
      }
      out.add(new Version(v.key(), toMillis(v.validFrom(), spec),
          v.validTo() == null ? null : toMillis(v.validTo(), spec), attributes));
    }
    return out;
  }

  private static Sequence toMillis(Sequence s, DimensionSpec spec) {
    long[] parts = s.parts().clone();
    for (int i = 0; i < parts.length; i++) {
      if (spec.sequenceColumns().get(i).type().kind() == ColumnType.Kind.TIMESTAMP) {
        parts[i] = toMillis(parts[i]);
      }
    }
    return Sequence.of(parts);
  }

  /** Epoch microseconds rounded to the nearest millisecond, a half up, still in microseconds. */
  static long toMillis(long micros) {
    return Math.floorDiv(micros + 500, 1_000) * 1_000;
  }

  /**
   * Three points of time on the first sequence part, each the start of some version: the earliest, the middle and
   * the latest start.
   */
  private static List<Long> asOfPoints(List<Version> versions) {
    TreeSet<Long> starts = new TreeSet<>();
    versions.forEach(v -> starts.add(v.validFrom().first()));
    List<Long> sorted = List.copyOf(starts);
    return List.of(sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
  }

  /** {@code t} (epoch micros, epoch days or the number) as a Trino SQL literal of the column's type. */
  static String literal(long t, ColumnType type) {
    Object value = ColumnValues.sequenceValue(t, type);
    return switch (type.kind()) {
      case TIMESTAMP -> "TIMESTAMP '" + TIMESTAMP.format((Instant) value) + " UTC'";
      case DATE -> "DATE '" + (LocalDate) value + "'";
      case LONG, INT -> Long.toString(t);
      default -> throw new IllegalArgumentException("no as-of literal for a sequence of type " + type);
    };
  }
}
