package io.dimstream.service;

import io.dimstream.compactor.LeaseHeldException;
import io.dimstream.compactor.TableSink;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.FileOwners;
import io.dimstream.table.OptimizeResult;
import io.dimstream.table.TableOptions;
import io.dimstream.table.TxnFence;
import io.dimstream.table.TxnOverlapException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/** Lets the compactor write the Delta table without either package knowing the other. */
public final class TableSinkAdapter implements TableSink {
  private final DeltaTable table;

  private TableSinkAdapter(DeltaTable table) {
    this.table = table;
  }

  public static TableSinkAdapter openOrCreate(DimensionSpec spec) {
    // the compactor commits for as long as the service runs: its checkpoints are written off the commit's path
    return new TableSinkAdapter(DeltaTable.openOrCreate(spec.service().tableStore(), spec, spec.tableProperties(),
        TableOptions.defaults().withBackgroundCheckpoints(true)));
  }

  /** A sink over an open table (for example one opened with other {@link TableOptions} or on a wrapped store). */
  public static TableSinkAdapter over(DeltaTable table) {
    return new TableSinkAdapter(table);
  }

  public DeltaTable table() {
    return table;
  }

  @Override
  public OptionalLong txnVersion(String appId) {
    long v = table.txnVersion(appId);
    return v < 0 ? OptionalLong.empty() : OptionalLong.of(v);
  }

  @Override
  public boolean sharedWriters() {
    return table.mergeOnRead();
  }

  @Override
  public String commit(List<VersionChange> changes, Map<String, Long> txns) {
    return commit(changes, txns, FileOwners.none(), TxnFence.none());
  }

  @Override
  public String commit(List<VersionChange> changes, Map<String, Long> txns, Map<String, Long> readFrom,
      Map<VersionId, Integer> partitions, Set<Integer> owned, boolean ownsAll) {
    return commit(changes, txns, FileOwners.of(partitions, owned, ownsAll), new TxnFence(readFrom));
  }

  private String commit(List<VersionChange> changes, Map<String, Long> txns, FileOwners owners, TxnFence fence) {
    CommitResult r;
    try {
      r = table.commit(changes, txns, "MERGE", owners, fence);
    } catch (TxnOverlapException e) {
      throw new LeaseHeldException(e.getMessage());
    }
    if (!r.committed()) {
      return String.format(Locale.ROOT, "nothing new (table already at version %d holds these offsets)", r.version());
    }
    return String.format(Locale.ROOT, "table version %d: +%d inserted ~%d updated -%d deleted, %d files added, %d removed",
        r.version(), r.rowsInserted(), r.rowsUpdated(), r.rowsDeleted(), r.filesAdded(), r.filesRemoved());
  }

  @Override
  public String maintain() {
    return summary(table.compact(false));
  }

  @Override
  public String maintain(Set<Integer> owned, boolean ownsAll) {
    return summary(table.compact(false, new FileOwners(Map.of(), owned, ownsAll)));
  }

  private static String summary(OptimizeResult r) {
    return r.committed() ? String.format(Locale.ROOT, "table version %d: compacted %d files into %d (%d rows)",
        r.version(), r.filesRemoved(), r.filesAdded(), r.rowsRewritten()) : null;
  }

  @Override
  public long latestVersion() {
    return table.latest().version();
  }
}
