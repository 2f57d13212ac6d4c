package io.dimstream.table.internal.maintenance;

import io.dimstream.model.Version;
import io.dimstream.table.OptimizeResult;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.commit.CommitWriter;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.FileStats;
import io.dimstream.table.internal.files.StatsCache;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.files.ValueOrder;
import io.dimstream.table.internal.index.CurrentRowIndex;
import io.dimstream.table.internal.index.IdentityBytes;
import io.dimstream.table.internal.index.PositionIndex;
import io.dimstream.table.internal.log.TableState;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of the compaction of a merge-on-read table: rewrites the files whose deleted fraction passes
 * {@code dimstream.compaction.deletedFraction}, and merges files with fewer live rows than
 * {@code dimstream.compaction.smallFileRows}, into files without deletion vectors, as one {@code OPTIMIZE} commit
 * with {@code dataChange: false}. A background cycle rewrites at most {@code dimstream.compaction.rowsPerCycle}
 * rows; a full run rewrites every such file. Rows are unchanged, so readers see the same table before and after.
 */
public final class DeletionVectorCompaction {
  private static final Logger LOG = LoggerFactory.getLogger(DeletionVectorCompaction.class);

  private final CommitWriter writer;
  private final StatsCache stats;
  private final CurrentRowIndex index;

  public DeletionVectorCompaction(CommitWriter writer, StatsCache stats, CurrentRowIndex index) {
    this.writer = writer;
    this.stats = stats;
    this.index = index;
  }

  /** Compacts on {@code s}; {@code all} lifts the per-cycle bound. */
  public OptimizeResult compact(TableState s, TableLayout layout, boolean all) {
    Map<String, String> conf = s.metadata.configuration();
    long rowsPerCycle = all ? Long.MAX_VALUE : TableProperties.compactionRowsPerCycle(conf);
    List<AddFile> current = new ArrayList<>();
    List<AddFile> closed = new ArrayList<>();
    long budget = rowsPerCycle;
    for (boolean isCurrent : new boolean[] {true, false}) {
      List<AddFile> picked = candidates(s, layout, isCurrent, conf);
      for (AddFile a : picked) {
        if (budget <= 0) {
          break;
        }
        (isCurrent ? current : closed).add(a);
        budget -= live(a, layout);
      }
    }
    if (current.size() + closed.size() == 0) {
      return new OptimizeResult(s.version, false, 0, 0, 0);
    }
    synchronized (index) {
      return rewrite(s, layout, current, closed);
    }
  }

  /**
   * Files of one partition to rewrite: those with enough deleted rows, plus the small ones when there are at least
   * two (one small file alone has nothing to merge with).
   */
  private List<AddFile> candidates(TableState s, TableLayout layout, boolean isCurrent, Map<String, String> conf) {
    double fraction = TableProperties.compactionDeletedFraction(conf);
    long small = TableProperties.compactionSmallFileRows(conf);
    List<AddFile> deleted = new ArrayList<>();
    List<AddFile> smalls = new ArrayList<>();
    for (AddFile a : s.adds.values()) {
      if (layout.isCurrentFile(a) != isCurrent) {
        continue;
      }
      long n = stats.get(a, layout).numRecords;
      if (n < 0) {
        continue;
      }
      if (a.deletedRows() > 0 && a.deletedRows() >= fraction * n) {
        deleted.add(a);
      } else if (n - a.deletedRows() < small) {
        smalls.add(a);
      }
    }
    if (smalls.size() + deleted.size() >= 2) {
      deleted.addAll(smalls);
    }
    return deleted;
  }

  private long live(AddFile a, TableLayout layout) {
    FileStats st = stats.get(a, layout);
    return Math.max(0, st.numRecords - a.deletedRows());
  }

  private OptimizeResult rewrite(TableState s, TableLayout layout, List<AddFile> current, List<AddFile> closed) {
    long start = System.nanoTime();
    Map<String, String> conf = s.metadata.configuration();
    long target = TableProperties.targetFileRows(conf);
    List<AddFile> added = new ArrayList<>();
    List<byte[]> ids = new ArrayList<>();
    List<Long> positions = new ArrayList<>();
    List<String> files = new ArrayList<>();
    long rows;
    try {
      rows = rewrite(s, layout, current, true, TableProperties.currentCodec(conf), target, added, ids, positions,
          files) + rewrite(s, layout, closed, false, TableProperties.codec(conf), target, added, null, null, null);
    } catch (RuntimeException e) {
      writer.deleteWritten(added);
      throw e;
    }
    List<AddFile> removed = new ArrayList<>(current);
    removed.addAll(closed);
    long now = writer.timestampAfter(s);
    long dvsRemoved = removed.stream().filter(a -> a.deletionVector() != null).count();
    List<Action> actions = OptimizeActions.of(s, now, removed, added, rows, dvsRemoved, start);
    // moved forward only when it reflects the base version; otherwise the next commit rebuilds it
    PositionIndex positionsIndex = current.isEmpty() ? null : index.ifAt(s);
    TableState after = writer.write(s.version + 1, actions, now, added, s);
    if (positionsIndex != null) {
      try {
        for (int i = 0; i < ids.size(); i++) {
          positionsIndex.put(ids.get(i), PositionIndex.location(positionsIndex.fileId(files.get(i)),
              positions.get(i)));
        }
        index.committed(after, layout);
      } catch (RuntimeException e) {
        index.invalidate();
        throw e;
      }
    }
    LOG.info("{}: compacted version {} into {}: {} files ({} with deletion vectors) rewritten as {}, {} rows",
        writer.root(), s.version, after.version, removed.size(), dvsRemoved, added.size(),
        rows);
    return new OptimizeResult(after.version, true, removed.size(), added.size(), rows);
  }

  /** Rewrites one partition's files (minus their deleted rows) sorted by identity, never cutting inside a key. */
  private long rewrite(TableState s, TableLayout layout, List<AddFile> files, boolean isCurrent,
      CompressionCodecName codec, long target, List<AddFile> added, List<byte[]> ids, List<Long> positions,
      List<String> paths) {
    if (files.isEmpty()) {
      return 0;
    }
    List<Version> all = new ArrayList<>();
    for (AddFile a : files) {
      try (DataFiles.RowIterator it = DataFiles.read(writer.root(), a, layout, s.version)) {
        it.forEachRemaining(all::add);
      }
    }
    all.sort(ValueOrder.BY_IDENTITY);
    String dir = layout.partition(isCurrent).directory();
    String codecName = codec.name().toLowerCase(Locale.ROOT);
    int from = 0;
    while (from < all.size()) {
      int to = (int) Math.min(all.size(), from + target);
      while (to < all.size() && all.get(to).key().equals(all.get(to - 1).key())) {
        to++;
      }
      List<Version> chunk = all.subList(from, to);
      AddFile a = DataFiles.write(writer.root(), Buckets.closedFile(dir, codecName), chunk, layout, isCurrent, codec)
          .withDataChange(false);
      added.add(a);
      if (ids != null) {
        for (int i = 0; i < chunk.size(); i++) {
          ids.add(IdentityBytes.of(chunk.get(i).key(), chunk.get(i).validFrom()));
          positions.add((long) i);
          paths.add(a.path());
        }
      }
      from = to;
    }
    return all.size();
  }
}
