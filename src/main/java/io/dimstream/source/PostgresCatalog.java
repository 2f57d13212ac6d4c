package io.dimstream.source;

import io.dimstream.spec.PostgresSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the database says about the captured table (its columns as dimension types, its primary key) and whether
 * it can be captured at all: {@code wal_level}, the user's privileges, the publication. One short JDBC session.
 */
public final class PostgresCatalog implements AutoCloseable {
  private static final Pattern NUMERIC = Pattern.compile("numeric\\((\\d+),(\\d+)\\)");

  /** The table as the spec sees it: columns in table order with their dimension types, the primary key. */
  public record TableShape(Map<String, String> columns, List<String> primaryKey, List<String> unsupported) {}

  private final PostgresSource source;
  private final Connection connection;

  private PostgresCatalog(PostgresSource source, Connection connection) {
    this.source = source;
    this.connection = connection;
  }

  /** Connects with the source's user. */
  public static PostgresCatalog open(PostgresSource source) {
    Properties p = new Properties();
    p.setProperty("user", source.user());
    if (source.password() != null) {
      p.setProperty("password", source.password());
    }
    p.setProperty("connectTimeout", "10");
    try {
      return new PostgresCatalog(source, DriverManager.getConnection(source.jdbcUrl(), p));
    } catch (SQLException e) {
      throw SourceErrors.cannotConnect(source, e);
    }
  }

  /** The table's columns and primary key; fails when the table does not exist. */
  public TableShape shape() {
    try {
      long oid = tableOid();
      Map<String, String> columns = new LinkedHashMap<>();
      List<String> unsupported = new ArrayList<>();
      try (PreparedStatement st = connection.prepareStatement("SELECT a.attname, format_type(a.atttypid, a.atttypmod),"
          + " t.typtype FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
          + " WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
        st.setLong(1, oid);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            String type = dimensionType(rs.getString(2), rs.getString(3));
            if (type == null) {
              unsupported.add(rs.getString(1) + " (" + rs.getString(2) + ")");
            } else {
              columns.put(rs.getString(1), type);
            }
          }
        }
      }
      return new TableShape(columns, primaryKey(oid), unsupported);
    } catch (SQLException e) {
      throw SourceErrors.failed(source, "reading the table's columns failed: " + e.getMessage(), e);
    }
  }

  /**
   * Checks everything the connector needs before it starts, so that a missing piece fails with its fix rather
   * than as a connector error: {@code wal_level = logical}, REPLICATION, SELECT on the table, a key the deletes
   * carry, and a publication of the table (or the right to create one).
   *
   * @param key the dimension's key columns
   */
  public void checkCapture(List<String> key) {
    try {
      String level = single("SHOW wal_level");
      if (!"logical".equals(level)) {
        throw SourceErrors.walLevel(source, level);
      }
      boolean superuser = bool("SELECT rolsuper FROM pg_roles WHERE rolname = current_user");
      if (!superuser && !bool("SELECT rolreplication FROM pg_roles WHERE rolname = current_user")) {
        throw SourceErrors.noReplication(source);
      }
      long oid = tableOid();
      if (!bool("SELECT has_table_privilege(" + oid + "::oid, 'SELECT')")) {
        throw SourceErrors.noSelect(source);
      }
      List<String> identity = replicaIdentity(oid);
      if (identity != null && !identity.containsAll(key)) {
        throw SourceErrors.keyNotInIdentity(source, key, identity);
      }
      try (PreparedStatement st = connection.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_publication WHERE"
          + " pubname = ?), EXISTS (SELECT 1 FROM pg_publication_tables WHERE pubname = ? AND schemaname = ? AND"
          + " tablename = ?), pg_has_role((SELECT relowner FROM pg_class WHERE oid = ?), 'USAGE')")) {
        st.setString(1, source.publication());
        st.setString(2, source.publication());
        st.setString(3, source.schema());
        st.setString(4, source.table());
        st.setLong(5, oid);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          boolean exists = rs.getBoolean(1);
          boolean hasTable = rs.getBoolean(2);
          boolean owner = rs.getBoolean(3) || superuser;
          if (!exists && !owner) {
            throw SourceErrors.publicationNeedsOwner(source);
          }
          if (exists && !hasTable) {
            throw SourceErrors.publicationLacksTable(source);
          }
        }
      }
    } catch (SQLException e) {
      throw SourceErrors.failed(source, "the checks before capture failed: " + e.getMessage(), e);
    }
  }

  /** The columns a delete carries: the primary key, an index's, every column (null for FULL). */
  private List<String> replicaIdentity(long oid) throws SQLException {
    String mode = single("SELECT relreplident FROM pg_class WHERE oid = " + oid);
    return switch (mode) {
      case "f" -> null;
      case "d" -> primaryKey(oid);
      case "i" -> indexColumns(oid, "i.indisreplident");
      default -> List.of();
    };
  }

  private List<String> primaryKey(long oid) throws SQLException {
    return indexColumns(oid, "i.indisprimary");
  }

  private List<String> indexColumns(long oid, String which) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid ="
            + " i.indrelid AND a.attnum = ANY (i.indkey) WHERE i.indrelid = " + oid + " AND " + which
            + " ORDER BY array_position(i.indkey::int2[], a.attnum)")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private long tableOid() throws SQLException {
    try (PreparedStatement st = connection.prepareStatement("SELECT c.oid FROM pg_class c JOIN pg_namespace n ON"
        + " n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')")) {
      st.setString(1, source.schema());
      st.setString(2, source.table());
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          throw SourceErrors.noTable(source);
        }
        return rs.getLong(1);
      }
    }
  }

  /**
   * The dimension column type of a Postgres type as Debezium writes it with {@code decimal.handling.mode=string}
   * and {@code time.precision.mode=connect}; null when a dimension cannot hold it.
   */
  static String dimensionType(String formatted, String typtype) {
    String t = formatted.toLowerCase(Locale.ROOT);
    if ("e".equals(typtype)) {
      return "string"; // an enum arrives as its label
    }
    Matcher numeric = NUMERIC.matcher(t);
    if (numeric.matches()) {
      int precision = Integer.parseInt(numeric.group(1));
      return precision <= 38 ? "decimal(" + precision + "," + numeric.group(2) + ")" : "string";
    }
    if (t.startsWith("character") || t.startsWith("timestamp")) {
      return t.startsWith("character") ? "string" : "timestamp";
    }
    return switch (t) {
      case "smallint", "integer" -> "int";
      case "bigint" -> "long";
      case "numeric" -> "string"; // no fixed scale: the exact text
      case "real", "double precision" -> "double";
      case "boolean" -> "boolean";
      case "text", "uuid", "json", "jsonb", "citext", "name", "xml", "inet", "cidr", "macaddr" -> "string";
      case "date" -> "date";
      default -> null;
    };
  }

  private String single(String sql) throws SQLException {
    try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private boolean bool(String sql) throws SQLException {
    try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      // nothing was written: a failed close loses nothing
    }
  }
}
