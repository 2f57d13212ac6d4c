package io.dimstream.table;

import io.delta.kernel.Scan;
import io.delta.kernel.Table;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/** Reads a table with Delta Kernel 4.4.0, the reference reader, and maps its rows back to versions. */
public final class KernelReader {
  private static final Engine ENGINE = DefaultEngine.create(new Configuration());

  private KernelReader() {}

  public static List<Version> latest(Path table, DimensionSpec spec) {
    return read(Table.forPath(ENGINE, table.toString()).getLatestSnapshot(ENGINE), spec);
  }

  public static List<Version> atVersion(Path table, DimensionSpec spec, long version) {
    return read(Table.forPath(ENGINE, table.toString()).getSnapshotAsOfVersion(ENGINE, version), spec);
  }

  static List<Version> atTimestamp(Path table, DimensionSpec spec, long millis) {
    return read(Table.forPath(ENGINE, table.toString()).getSnapshotAsOfTimestamp(ENGINE, millis), spec);
  }

  public static long latestVersion(Path table) {
    return Table.forPath(ENGINE, table.toString()).getLatestSnapshot(ENGINE).getVersion();
  }

  public static Optional<Long> txnVersion(Path table, String appId) {
    return Table.forPath(ENGINE, table.toString()).getLatestSnapshot(ENGINE).getLatestTransactionVersion(ENGINE, appId);
  }

  /** How many data files Kernel plans to read for {@code filter}: fewer than all when it skips by our statistics. */
  static int scanFileCount(Path table, io.delta.kernel.expressions.Predicate filter) {
    io.delta.kernel.Snapshot snapshot = Table.forPath(ENGINE, table.toString()).getLatestSnapshot(ENGINE);
    io.delta.kernel.ScanBuilder builder = snapshot.getScanBuilder();
    if (filter != null) {
      builder = builder.withFilter(filter);
    }
    int n = 0;
    try (CloseableIterator<FilteredColumnarBatch> files = builder.build().getScanFiles(ENGINE)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> rows = files.next().getRows()) {
          while (rows.hasNext()) {
            rows.next();
            n++;
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return n;
  }

  /** Every row as column name to value (Kernel's raw forms: dates as epoch days, timestamps as micros). */
  static List<Map<String, Object>> rows(io.delta.kernel.Snapshot snapshot) {
    List<Map<String, Object>> out = new ArrayList<>();
    try {
      Scan scan = snapshot.getScanBuilder().build();
      Row scanState = scan.getScanState(ENGINE);
      StructType physical = ScanStateRow.getPhysicalDataReadSchema(scanState);
      try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(ENGINE)) {
        while (files.hasNext()) {
          try (CloseableIterator<Row> fileRows = files.next().getRows()) {
            while (fileRows.hasNext()) {
              Row fileRow = fileRows.next();
              FileStatus fs = InternalScanFileUtils.getAddFileStatus(fileRow);
              CloseableIterator<ColumnarBatch> data = ENGINE.getParquetHandler()
                  .readParquetFiles(Utils.singletonCloseableIterator(fs), physical, Optional.empty())
                  .map(FileReadResult::getData);
              try (CloseableIterator<FilteredColumnarBatch> logical =
                       Scan.transformPhysicalData(ENGINE, scanState, fileRow, data)) {
                while (logical.hasNext()) {
                  FilteredColumnarBatch batch = logical.next();
                  StructType schema = batch.getData().getSchema();
                  try (CloseableIterator<Row> rows = batch.getRows()) {
                    while (rows.hasNext()) {
                      Row r = rows.next();
                      Map<String, Object> m = new HashMap<>();
                      for (int i = 0; i < schema.length(); i++) {
                        StructField f = schema.at(i);
                        m.put(f.getName(), value(r, i, f));
                      }
                      out.add(m);
                    }
                  }
                }
              }
            }
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  private static Object value(Row r, int i, StructField f) {
    if (r.isNullAt(i)) {
      return null;
    }
    String t = f.getDataType().toString().toLowerCase();
    if (t.startsWith("long")) {
      return r.getLong(i);
    } else if (t.startsWith("integer")) {
      return r.getInt(i);
    } else if (t.startsWith("double")) {
      return r.getDouble(i);
    } else if (t.startsWith("boolean")) {
      return r.getBoolean(i);
    } else if (t.startsWith("string")) {
      return r.getString(i);
    } else if (t.startsWith("date")) {
      return LocalDate.ofEpochDay(r.getInt(i));
    } else if (t.startsWith("timestamp")) {
      return Instant.EPOCH.plus(r.getLong(i), ChronoUnit.MICROS);
    } else if (t.startsWith("decimal")) {
      return r.getDecimal(i);
    }
    throw new IllegalArgumentException("unexpected type " + t);
  }

  private static List<Version> read(io.delta.kernel.Snapshot snapshot, DimensionSpec spec) {
    return versions(rows(snapshot), spec);
  }

  /**
   * Table rows (column name to value: timestamps as {@link Instant}, dates as {@link LocalDate}) as versions of
   * {@code spec}; throws when a row's is_current disagrees with its valid_to.
   */
  public static List<Version> versions(List<Map<String, Object>> rows, DimensionSpec spec) {
    List<Version> out = new ArrayList<>();
    List<String> from = new ArrayList<>();
    from.add(spec.output().validFrom());
    from.addAll(spec.extraValidFromColumns());
    List<String> to = new ArrayList<>();
    to.add(spec.output().validTo());
    to.addAll(spec.extraValidToColumns());
    List<Column> seq = spec.sequenceColumns();
    for (Map<String, Object> m : rows) {
      List<Object> key = new ArrayList<>();
      spec.keyColumns().forEach(c -> key.add(m.get(c.name())));
      List<Object> attrs = new ArrayList<>();
      spec.attributeColumns().forEach(c -> attrs.add(m.get(c.name())));
      long[] f = new long[seq.size()];
      long[] t = new long[seq.size()];
      boolean open = false;
      for (int i = 0; i < seq.size(); i++) {
        ColumnType type = TableLayout.sequenceTableType(seq.get(i).type());
        f[i] = ColumnValues.sequenceLong(m.get(from.get(i)), type);
        Object tv = m.get(to.get(i));
        if (tv == null) {
          open = true;
        } else {
          t[i] = ColumnValues.sequenceLong(tv, type);
        }
      }
      Version v = new Version(new BusinessKey(key), Sequence.of(f), open ? null : Sequence.of(t), attrs);
      if (!Boolean.valueOf(v.isCurrent()).equals(m.get(spec.output().isCurrent()))) {
        throw new AssertionError("is_current disagrees with valid_to in " + m);
      }
      out.add(v);
    }
    return out;
  }
}
