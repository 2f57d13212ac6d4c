package io.dimstream.query;

import io.dimstream.DimstreamException;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Snapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The query side's view of a dimstream Delta table ({@link DeltaTable}): snapshots as {@link VersionSource}s whose
 * scans use the table's own file skipping (key statistics and buckets for key lookups, validity statistics for
 * as-of scans). Thread-safe.
 */
public final class DeltaVersionTable implements VersionTable {
  /** Key lookups up to this many keys go file-skipping key by key; more keys scan the table once. */
  static final int MAX_KEY_LOOKUPS = 64;

  private final DeltaTable table;

  public DeltaVersionTable(DeltaTable table) {
    this.table = table;
  }

  /**
   * Opens the table in {@code dir}.
   *
   * @throws QueryException {@link QueryException.Reason#NOT_FOUND} when {@code dir} holds no {@code _delta_log},
   *                        {@link QueryException.Reason#UNAVAILABLE} when the log cannot be read
   */
  public static DeltaVersionTable open(Path dir) {
    return open(new LocalStore(dir));
  }

  /**
   * Opens the table in {@code store} (a local directory or an object store prefix).
   *
   * @throws QueryException {@link QueryException.Reason#NOT_FOUND} when the location holds no {@code _delta_log},
   *                        {@link QueryException.Reason#UNAVAILABLE} when the log cannot be read
   */
  public static DeltaVersionTable open(ObjectStore store) {
    try {
      if (!DeltaTable.exists(store)) {
        throw QueryErrors.noTable(store.location());
      }
    } catch (IOException e) {
      throw QueryErrors.unreadableTable(store.location(), e);
    }
    try {
      return new DeltaVersionTable(DeltaTable.open(store));
    } catch (DimstreamException e) {
      throw QueryErrors.unreadableTable(store.location(), e);
    }
  }

  public DeltaTable table() {
    return table;
  }

  @Override
  public DimensionSpec spec() {
    return table.spec();
  }

  @Override
  public VersionSource at(TimeTravel when) {
    Snapshot s;
    try {
      if (when instanceof TimeTravel.AtVersion v) {
        s = snapshotAt(v.version());
      } else if (when instanceof TimeTravel.AtTimestamp t) {
        s = table.snapshotAsOf(t.timestamp());
      } else {
        s = table.latest();
      }
    } catch (QueryException e) {
      throw e;
    } catch (DimstreamException e) {
      throw QueryErrors.wrapped(QueryException.Reason.NOT_FOUND, e.getMessage(), e);
    }
    return new SnapshotSource(s);
  }

  private Snapshot snapshotAt(long version) {
    long latest = table.latest().version();
    if (version < 0 || version > latest) {
      throw QueryErrors.noTableVersion(table.location(), version, latest);
    }
    return table.snapshotAt(version);
  }

  @Override
  public List<TableCommit> commits(int limit) {
    List<TableCommit> out = new ArrayList<>();
    for (CommitSummary c : table.history()) {
      if (out.size() >= limit) {
        break;
      }
      out.add(new TableCommit(c.version(), c.timestamp(), c.operation(), c.operationMetrics()));
    }
    return out;
  }

  /** One snapshot as a version source. */
  private record SnapshotSource(Snapshot snapshot) implements VersionSource {
    @Override
    public DimensionSpec spec() {
      return snapshot.spec();
    }

    @Override
    public long tableVersion() {
      return snapshot.version();
    }

    @Override
    public Stream<Version> scan(ScanHints hints) {
      if (!hints.keys().isEmpty() && hints.keys().size() <= MAX_KEY_LOOKUPS) {
        List<Version> rows = new ArrayList<>();
        for (BusinessKey k : hints.keys()) {
          rows.addAll(snapshot.history(k));
        }
        return rows.stream();
      }
      if (hints.validAt() != null) {
        return snapshot.asOf(hints.validAt());
      }
      return snapshot.scan();
    }
  }
}
