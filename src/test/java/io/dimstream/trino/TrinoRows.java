package io.dimstream.trino;

import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.KernelReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Rows Trino answered with over JDBC: as column-to-value maps, and as the versions of a dimension. */
public final class TrinoRows {
  private TrinoRows() {}

  /**
   * The rows of {@code sql}, each column name to its value: timestamps (with time zone, as Trino reads Delta's
   * {@code timestamp}) as {@link java.time.Instant}, dates as {@link java.time.LocalDate}, numbers, booleans and
   * strings as JDBC gives them, maps (as in {@code $history}) as {@link Map}.
   */
  public static List<Map<String, Object>> query(TrinoServer trino, String sql) {
    try (Connection c = trino.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      List<Map<String, Object>> out = new ArrayList<>();
      while (rs.next()) {
        Map<String, Object> row = new HashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          row.put(md.getColumnName(i), value(rs, i, md.getColumnType(i)));
        }
        out.add(row);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("Trino refused: " + sql + "\n  " + e.getMessage(), e);
    }
  }

  /** The rows of {@code sql} (all columns of a dimstream table) as versions of {@code spec}, in version order. */
  public static List<Version> versions(TrinoServer trino, String sql, DimensionSpec spec) {
    List<Version> out = new ArrayList<>(KernelReader.versions(query(trino, sql), spec));
    out.sort(BusinessKeys.VERSION_ORDER);
    return out;
  }

  private static Object value(ResultSet rs, int i, int type) throws SQLException {
    Object v = switch (type) {
      case Types.TIMESTAMP_WITH_TIMEZONE, Types.TIMESTAMP -> {
        java.sql.Timestamp t = rs.getTimestamp(i);
        yield t == null ? null : t.toInstant();
      }
      case Types.DATE -> {
        java.sql.Date d = rs.getDate(i);
        yield d == null ? null : d.toLocalDate();
      }
      default -> rs.getObject(i);
    };
    return rs.wasNull() ? null : v;
  }
}
