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
import io.dimstream.table.internal.index.ClosedRowPositions;
import io.dimstream.table.internal.index.PositionIndex;
import io.dimstream.table.internal.log.TableState;
import io.dimstream.table.Ownership;
import io.dimstream.table.internal.commit.ConcurrentCommits;
import io.dimstream.table.internal.files.FileOwner;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongFunction;
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
  /** How many times a rewrite is written again on newer versions before it is re-planned. */
  private static final int MAX_REBASES = 20;
  private static final Logger LOG = LoggerFactory.getLogger(DeletionVectorCompaction.class);

  private final CommitWriter writer;
  private final StatsCache stats;
  private final CurrentRowIndex index;

  public DeletionVectorCompaction(CommitWriter writer, StatsCache stats, CurrentRowIndex index) {
    this.writer = writer;
    this.stats = stats;
    this.index = index;
  }

  /**
   * Compacts on {@code s} the files {@code owners} may rewrite, each owner's files into files of the same owner;
   * {@code all} lifts the per-cycle bound.
   */
  public OptimizeResult compact(TableState s, TableLayout layout, boolean all, Ownership owners) {
    Map<String, String> conf = s.metadata.configuration();
    long rowsPerCycle = all ? Long.MAX_VALUE : TableProperties.compactionRowsPerCycle(conf);
    List<AddFile> current = new ArrayList<>();
    List<AddFile> closed = new ArrayList<>();
    long budget = rowsPerCycle;
    for (boolean isCurrent : new boolean[] {true, false}) {
      List<AddFile> picked = candidates(s, layout, isCurrent, conf, owners, all);
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
  private List<AddFile> candidates(TableState s, TableLayout layout, boolean isCurrent, Map<String, String> conf,
      Ownership owners, boolean all) {
    Map<Integer, List<AddFile>> byOwner = new TreeMap<>();
    for (AddFile a : s.adds.values()) {
      int owner = FileOwner.of(a).orElse(-1);
      if (layout.isCurrentFile(a) == isCurrent && owners.mayRewrite(owner)) {
        byOwner.computeIfAbsent(owner, o -> new ArrayList<>()).add(a);
      }
    }
    List<AddFile> out = new ArrayList<>();
    byOwner.values().forEach(files -> out.addAll(candidates(files, layout, conf, all)));
    return out;
  }

  /**
   * Of one owner's files: those with enough deleted rows, plus small ones when there are two to merge: every small
   * file with {@code all}, else the tier {@link SmallFileTiers} picks.
   */
  private List<AddFile> candidates(List<AddFile> files, TableLayout layout, Map<String, String> conf, boolean all) {
    double fraction = TableProperties.compactionDeletedFraction(conf);
    long small = TableProperties.compactionSmallFileRows(conf);
    List<AddFile> deleted = new ArrayList<>();
    List<AddFile> smalls = new ArrayList<>();
    for (AddFile a : files) {
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
    List<AddFile> merged = all ? smalls
        : SmallFileTiers.pick(smalls, a -> live(a, layout), deleted.stream().mapToLong(a -> live(a, layout)).sum());
    if (merged.size() + deleted.size() >= 2) {
      deleted.addAll(merged);
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
    long dvsRemoved = removed.stream().filter(a -> a.deletionVector() != null).count();
    long rowsOut = rows;
    LongFunction<List<Action>> actionsAt = at -> OptimizeActions.of(s, at, removed, added, rowsOut, dvsRemoved,
        start);
    // moved forward only when it reflects the base version; otherwise the next commit rebuilds it
    PositionIndex positionsIndex = current.isEmpty() ? null : index.ifAt(s);
    Set<String> touched = new HashSet<>();
    removed.forEach(r -> touched.add(r.path()));
    // a rewrite adds no rows: only winners that removed or re-marked one of its files make it re-plan
    TableState after = writer.writeRebasing(s, actionsAt, added, new ConcurrentCommits(touched, Set.of(), null),
        MAX_REBASES);
    if (positionsIndex != null) {
      try {
        for (int i = 0; i < ids.size(); i++) {
          positionsIndex.put(ids.get(i), PositionIndex.location(positionsIndex.fileId(files.get(i)),
              positions.get(i)));
        }
        if (after.version == s.version + 1) {
          index.committed(after, layout);
        } else {
          TableState.Builder b = s.toBuilder();
          b.apply(actionsAt.apply(after.timestampMillis));
          index.committedBehind(b.build(s.version + 1, after.timestampMillis), layout, after.version);
        }
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
    Map<Integer, List<AddFile>> byOwner = new TreeMap<>();
    files.forEach(a -> byOwner.computeIfAbsent(FileOwner.of(a).orElse(-1), o -> new ArrayList<>()).add(a));
    long rows = 0;
    for (Map.Entry<Integer, List<AddFile>> e : byOwner.entrySet()) {
      rows += rewrite(s, layout, e.getValue(), e.getKey(), isCurrent, codec, target, added, ids, positions, paths);
    }
    return rows;
  }

  /** Rewrites files of one owner (-1: none) into files of the same owner. */
  private long rewrite(TableState s, TableLayout layout, List<AddFile> files, int owner, boolean isCurrent,
      CompressionCodecName codec, long target, List<AddFile> added, List<byte[]> ids, List<Long> positions,
      List<String> paths) {
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
      String name = owner < 0 ? Buckets.closedFile(dir, codecName) : FileOwner.fileName(dir, owner, codecName);
      AddFile a = DataFiles.write(writer.root(), name, chunk, layout, isCurrent, codec).withDataChange(false);
      if (owner >= 0) {
        a = FileOwner.tag(a, owner);
      }
      added.add(a);
      if (!isCurrent) {
        // the next commits would otherwise read this file once to learn its identities
        index.closedFilters().put(a, ClosedRowPositions.ofRows(chunk));
      }
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
