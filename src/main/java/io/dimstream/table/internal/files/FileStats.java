package io.dimstream.table.internal.files;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The parts of a data file's Delta statistics used to skip files: key bounds and the first validity part's bounds.
 * A missing bound means "unknown" and never skips.
 */
public final class FileStats {
  public static final FileStats UNKNOWN = new FileStats(-1, null, null, null, null, null);

  public final long numRecords;
  private final Object[] keyMin;
  private final Object[] keyMax;
  /** Bounds of valid_from's first part in sequence units; null when unknown. */
  public final Long validFromMin;
  public final Long validFromMax;
  /** Upper bound of valid_to's first part; null when unknown or when the file holds open versions. */
  public final Long validToMax;

  private FileStats(long numRecords, Object[] keyMin, Object[] keyMax, Long validFromMin, Long validFromMax,
      Long validToMax) {
    this.numRecords = numRecords;
    this.keyMin = keyMin;
    this.keyMax = keyMax;
    this.validFromMin = validFromMin;
    this.validFromMax = validFromMax;
    this.validToMax = validToMax;
  }

  public static FileStats parse(String json, TableLayout layout) {
    if (json == null) {
      return UNKNOWN;
    }
    try {
      JsonNode root = ActionCodec.JSON.readTree(json);
      JsonNode mins = root.path("minValues");
      JsonNode maxs = root.path("maxValues");
      List<Column> keys = layout.keyColumns;
      Object[] kmin = new Object[keys.size()];
      Object[] kmax = new Object[keys.size()];
      for (int i = 0; i < keys.size(); i++) {
        kmin[i] = value(mins.get(keys.get(i).name()), keys.get(i).type(), false);
        kmax[i] = value(maxs.get(keys.get(i).name()), keys.get(i).type(), true);
      }
      Column from = layout.validFromColumns.get(0);
      Column to = layout.validToColumns.get(0);
      long records = root.path("numRecords").asLong(-1);
      Long toMax = sequence(maxs.get(to.name()), to.type(), true);
      if (toMax != null && root.path("nullCount").path(to.name()).asLong(1) != 0) {
        toMax = null;
      }
      return new FileStats(records, kmin, kmax, sequence(mins.get(from.name()), from.type(), false),
          sequence(maxs.get(from.name()), from.type(), true), toMax);
    } catch (Exception e) {
      return UNKNOWN;
    }
  }

  /** False only when the statistics prove that no row of the file has this key. */
  public boolean mayContainKey(BusinessKey key) {
    if (keyMin == null) {
      return true;
    }
    for (int i = 0; i < keyMin.length; i++) {
      Object v = key.values().get(i);
      if (keyMin[i] != null && ValueOrder.compare(v, keyMin[i]) < 0) {
        return false;
      }
      if (keyMax[i] != null && ValueOrder.compare(v, keyMax[i]) > 0) {
        return false;
      }
    }
    return true;
  }

  /** False only when no row's valid_from first part can equal {@code first}. */
  public boolean mayContainValidFrom(long first) {
    return (validFromMin == null || first >= validFromMin) && (validFromMax == null || first <= validFromMax);
  }

  /**
   * False only when every row of the file is proven not valid at {@code first} (opened after it, or closed by it).
   * With a composite sequence a row closed at the same first part may still be valid at a later second part.
   */
  public boolean mayBeValidAt(long first, boolean composite) {
    if (validFromMin != null && validFromMin > first) {
      return false;
    }
    return validToMax == null || validToMax > first || (composite && validToMax == first);
  }

  private static Long sequence(JsonNode n, ColumnType t, boolean upper) {
    Object v = value(n, t, upper);
    return v == null ? null : ColumnValues.sequenceLong(v, t);
  }

  private static Object value(JsonNode n, ColumnType t, boolean upper) {
    if (n == null || n.isNull()) {
      return null;
    }
    return switch (t.kind()) {
      case LONG -> n.canConvertToLong() ? n.asLong() : null;
      case INT -> n.canConvertToInt() ? n.asInt() : null;
      case DOUBLE -> n.asDouble();
      case DECIMAL -> n.decimalValue();
      case STRING -> n.asText();
      case DATE -> LocalDate.parse(n.asText());
      case TIMESTAMP -> {
        Instant i = OffsetDateTime.parse(n.asText()).toInstant();
        // statistics are truncated to milliseconds: the true max may be up to 999 microseconds later
        yield upper ? i.plusNanos(999_000) : i;
      }
      case BOOLEAN -> null;
    };
  }
}
