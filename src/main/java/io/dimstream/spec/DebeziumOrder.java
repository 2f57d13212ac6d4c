package io.dimstream.spec;

import io.dimstream.types.ColumnType;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How Debezium events are ordered as their database commits them: the envelope's {@code source} fields a sequence
 * may name ({@code source.lsn}, {@code source.file}, ...), their column types, and the default sequence of each
 * connector ({@code debezium: {connector: mysql}}).
 */
public final class DebeziumOrder {
  /** Prefix of a sequence name that is read from the envelope's {@code source} block, not from the row. */
  public static final String SOURCE_PREFIX = "source.";

  /**
   * The commit order of each connector, compared left to right. A change event's own {@code ts_ms} is not in it:
   * it may lag commit order, and two commits in one millisecond would tie.
   */
  private static final Map<String, List<String>> COMMIT_ORDER = new TreeMap<>(Map.of(
      "postgresql", List.of("source.lsn"),
      "mysql", List.of("source.file", "source.pos", "source.row"),
      "mariadb", List.of("source.file", "source.pos", "source.row"),
      "sqlserver", List.of("source.commit_lsn", "source.change_lsn", "source.event_serial_no"),
      "oracle", List.of("source.commit_scn", "source.scn"),
      "mongodb", List.of("source.ts_ms", "source.ord")));

  /**
   * Postgres' {@code source.sequence}: the text of a JSON array [last committed LSN, LSN of the change], read as
   * two sequence columns, one per element, compared left to right as numbers.
   */
  public static final String PG_SEQUENCE = "source.sequence";

  private DebeziumOrder() {}

  /** {@code source.sequence} stands for its two elements, {@code source.sequence.0} and {@code source.sequence.1}. */
  public static List<String> expand(List<String> sequence) {
    if (!sequence.contains(PG_SEQUENCE)) {
      return sequence;
    }
    List<String> out = new java.util.ArrayList<>();
    for (String s : sequence) {
      if (s.equals(PG_SEQUENCE)) {
        out.add(PG_SEQUENCE + ".0");
        out.add(PG_SEQUENCE + ".1");
      } else {
        out.add(s);
      }
    }
    return out;
  }

  /** Whether a sequence name is a field of the envelope's {@code source} block. */
  public static boolean isSourceField(String name) {
    return name.startsWith(SOURCE_PREFIX) && name.length() > SOURCE_PREFIX.length();
  }

  /** The field name inside {@code source}: {@code lsn} for {@code source.lsn}. */
  public static String sourceField(String name) {
    return name.substring(SOURCE_PREFIX.length());
  }

  /** The connectors with a default sequence, sorted. */
  public static List<String> connectors() {
    return List.copyOf(COMMIT_ORDER.keySet());
  }

  /** The default sequence of {@code connector} ({@code source.connector} in its events), or null when unknown. */
  public static List<String> commitOrder(String connector) {
    return COMMIT_ORDER.get(connector);
  }

  /**
   * The column type a {@code source} field is read as: {@code source.ts_ms} a timestamp (epoch millis), every other
   * field a long (numbers, digit strings, MySQL binlog file names by their index, SQL Server LSNs packed).
   */
  public static ColumnType typeOf(String name) {
    return name.equals("source.ts_ms") ? ColumnType.TIMESTAMP : ColumnType.LONG;
  }
}
