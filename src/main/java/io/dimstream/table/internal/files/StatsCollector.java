package io.dimstream.table.internal.files;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Collects Delta file statistics ({@code numRecords}, {@code minValues}, {@code maxValues}, {@code nullCount}) as
 * rows are written. Timestamps are written at millisecond precision, truncated (readers widen the max by 1 ms);
 * strings longer than {@value #MAX_STRING} code points keep a truncated min and no max; booleans get no min/max.
 */
public final class StatsCollector {
  public static final int MAX_STRING = 32;
  public static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.UTC);

  private final List<Column> columns;
  private final Object[] min;
  private final Object[] max;
  private final long[] nulls;
  private final boolean[] noMax;
  /** Per column fed through {@link #acceptLong}: min and max as longs, and whether any value came. */
  private final long[] longMin;
  private final long[] longMax;
  private final boolean[] hasLong;
  private long records;

  public StatsCollector(List<Column> columns) {
    this.columns = columns;
    this.min = new Object[columns.size()];
    this.max = new Object[columns.size()];
    this.nulls = new long[columns.size()];
    this.noMax = new boolean[columns.size()];
    this.longMin = new long[columns.size()];
    this.longMax = new long[columns.size()];
    this.hasLong = new boolean[columns.size()];
  }

  /**
   * A non-null value of a long, int, date or timestamp column in its stored form (the long, the int, epoch days,
   * epoch microseconds): compared without boxing. Null values go to {@link #accept}.
   */
  public void acceptLong(int column, long value) {
    if (column == 0) {
      records++;
    }
    if (!hasLong[column]) {
      hasLong[column] = true;
      longMin[column] = value;
      longMax[column] = value;
    } else if (value < longMin[column]) {
      longMin[column] = value;
    } else if (value > longMax[column]) {
      longMax[column] = value;
    }
  }

  public void accept(int column, Object value) {
    if (column == 0) {
      records++;
    }
    if (value == null) {
      nulls[column]++;
      return;
    }
    if (value instanceof Double d && d.isNaN()) {
      noMax[column] = true;
      return;
    }
    if (min[column] == null || ValueOrder.compare(value, min[column]) < 0) {
      min[column] = value;
    }
    if (max[column] == null || ValueOrder.compare(value, max[column]) > 0) {
      max[column] = value;
    }
  }

  public long records() {
    return records;
  }

  public String toJson() {
    ObjectNode root = ActionCodec.JSON.createObjectNode();
    root.put("numRecords", records);
    ObjectNode mins = root.putObject("minValues");
    ObjectNode maxs = root.putObject("maxValues");
    ObjectNode nullCounts = root.putObject("nullCount");
    for (int i = 0; i < columns.size(); i++) {
      Column c = columns.get(i);
      nullCounts.put(c.name(), nulls[i]);
      if (hasLong[i]) {
        fromLongs(i, c.type().kind());
      }
      if (min[i] == null || c.type().kind() == ColumnType.Kind.BOOLEAN || noMax[i]) {
        continue;
      }
      putValue(mins, c, min[i], false);
      putValue(maxs, c, max[i], true);
    }
    try {
      return ActionCodec.JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Merges the long min and max of column {@code i} into its object min and max. */
  private void fromLongs(int i, ColumnType.Kind kind) {
    Object lo = stored(longMin[i], kind);
    Object hi = stored(longMax[i], kind);
    if (min[i] == null || ValueOrder.compare(lo, min[i]) < 0) {
      min[i] = lo;
    }
    if (max[i] == null || ValueOrder.compare(hi, max[i]) > 0) {
      max[i] = hi;
    }
  }

  private static Object stored(long v, ColumnType.Kind kind) {
    return switch (kind) {
      case LONG -> v;
      case INT -> (int) v;
      case DATE -> java.time.LocalDate.ofEpochDay(v);
      case TIMESTAMP -> ColumnValues.fromEpochMicros(v);
      default -> throw new IllegalStateException(kind + " values are not stored as longs");
    };
  }

  private static void putValue(ObjectNode node, Column c, Object v, boolean isMax) {
    String name = c.name();
    switch (c.type().kind()) {
      case LONG -> node.put(name, (Long) v);
      case INT -> node.put(name, (Integer) v);
      case DOUBLE -> {
        double d = (Double) v;
        if (!Double.isInfinite(d)) {
          node.put(name, d);
        }
      }
      case DECIMAL -> node.put(name, (BigDecimal) v);
      case STRING -> {
        String s = (String) v;
        if (s.codePointCount(0, s.length()) <= MAX_STRING) {
          node.put(name, s);
        } else if (!isMax) {
          node.put(name, s.substring(0, s.offsetByCodePoints(0, MAX_STRING)));
        }
      }
      case DATE -> node.put(name, v.toString());
      case TIMESTAMP -> node.put(name, TIMESTAMP.format(((Instant) v).truncatedTo(ChronoUnit.MILLIS)));
      case BOOLEAN -> { }
    }
  }
}
