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
import io.dimstream.table.internal.log.TableState;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/** One attempt of OPTIMIZE: merges small closed-version files into key-clustered files of the target size. */
public final class Optimizer {
  /** How many target-size files one optimize bin may produce (bounds the rows optimize holds in memory). */
  private static final int CLUSTER_FILES = 10;

  private final CommitWriter writer;
  private final StatsCache stats;

  public Optimizer(CommitWriter writer, StatsCache stats) {
    this.writer = writer;
    this.stats = stats;
  }

  /** See {@link io.dimstream.table.DeltaTable#optimize()}. */
  public OptimizeResult optimize(TableState s, TableLayout layout) {
    long target = TableProperties.targetFileRows(s.metadata.configuration());
    CompressionCodecName codec = TableProperties.codec(s.metadata.configuration());
    List<List<AddFile>> bins = bins(s, layout, target);
    if (bins.isEmpty()) {
      return new OptimizeResult(s.version, false, 0, 0, 0);
    }
    long start = System.nanoTime();
    List<AddFile> added = new ArrayList<>();
    List<AddFile> removed = new ArrayList<>();
    long rewritten = 0;
    String codecName = codec.name().toLowerCase(Locale.ROOT);
    try {
      for (List<AddFile> b : bins) {
        List<Version> all = new ArrayList<>();
        for (AddFile a : b) {
          try (DataFiles.RowIterator it = DataFiles.read(writer.root(), a, layout, s.version)) {
            it.forEachRemaining(all::add);
          }
        }
        all.sort(ValueOrder.BY_IDENTITY);
        int from = 0;
        while (from < all.size()) {
          // cut after `target` rows, but never inside one key's versions: a key lives in one file of the group
          int to = (int) Math.min(all.size(), from + target);
          while (to < all.size() && all.get(to).key().equals(all.get(to - 1).key())) {
            to++;
          }
          added.add(DataFiles.write(writer.root(), Buckets.closedFile(layout.closed.directory(), codecName),
              all.subList(from, to), layout, false, codec).withDataChange(false));
          from = to;
        }
        removed.addAll(b);
        rewritten += all.size();
      }
    } catch (RuntimeException e) {
      writer.deleteWritten(added);
      throw e;
    }
    long now = writer.timestampAfter(s);
    List<Action> actions = OptimizeActions.of(s, now, removed, added, rewritten, null, start);
    writer.write(s.version + 1, actions, now, added, s);
    return new OptimizeResult(s.version + 1, true, removed.size(), added.size(), rewritten);
  }

  /**
   * Small closed files (under half the target rows) in bins of up to CLUSTER_FILES target files: each bin is sorted
   * by key and cut into files of at most the target, so the files of a bin cover disjoint key ranges and a key
   * lookup reads one of them. Bins of one file are dropped (nothing to merge).
   */
  private List<List<AddFile>> bins(TableState s, TableLayout layout, long target) {
    long binRows = target * CLUSTER_FILES;
    List<List<AddFile>> bins = new ArrayList<>();
    List<AddFile> bin = new ArrayList<>();
    long rows = 0;
    for (AddFile a : s.adds.values()) {
      FileStats st = stats.get(a, layout);
      if (layout.isCurrentFile(a) || st.numRecords < 0 || st.numRecords >= target / 2) {
        continue;
      }
      if (!bin.isEmpty() && rows + st.numRecords > binRows) {
        bins.add(bin);
        bin = new ArrayList<>();
        rows = 0;
      }
      bin.add(a);
      rows += st.numRecords;
    }
    bins.add(bin);
    bins.removeIf(b -> b.size() < 2);
    return bins;
  }
}
