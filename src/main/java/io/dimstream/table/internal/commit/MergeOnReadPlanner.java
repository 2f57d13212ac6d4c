package io.dimstream.table.internal.commit;

import io.dimstream.storage.ObjectStore;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.FileOwner;
import io.dimstream.table.internal.files.IdentitySort;
import io.dimstream.table.internal.files.StatsCache;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.storage.Uploads;
import io.dimstream.table.internal.dv.DeletionVectorFiles;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import io.dimstream.table.internal.index.ClosedFileFilters;
import io.dimstream.table.internal.index.ClosedRowPositions;
import io.dimstream.table.internal.index.IdentityBytes;
import io.dimstream.table.internal.index.IdentityFilter;
import io.dimstream.table.internal.index.PositionIndex;
import io.dimstream.table.internal.log.TableState;
import io.dimstream.table.internal.actions.AddCDCFile;
import io.dimstream.table.internal.cdc.ChangeData;
import io.dimstream.table.internal.cdc.ChangeDataFiles;
import io.dimstream.table.internal.cdc.ChangeRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans one batch of version changes merge-on-read: the new rows go to new files, the rows they replace are marked
 * deleted in deletion vectors of the files that hold them. A current row is found through the position index, a
 * closed one through the row positions this process keeps of the closed files, else the files' key and valid_from
 * statistics, identity filters and a read of only those two columns; no file is
 * rewritten, so the cost follows the change, not the table.
 */
public final class MergeOnReadPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(MergeOnReadPlanner.class);

  private final ObjectStore root;
  private final TableState state;
  private final TableLayout layout;
  private final StatsCache stats;
  private final PositionIndex index;
  private final ClosedFileFilters filters;
  private final CompressionCodecName codec;
  private final CompressionCodecName currentCodec;
  private final long targetFileRows;
  private final boolean changeDataFeed;
  private final List<AddFile> written = new ArrayList<>();
  /** The new data and DV files, uploaded in parallel on an object store; all are stored when plan returns. */
  private final Uploads uploads;
  private final List<byte[]> indexRemovals = new ArrayList<>();
  private final List<byte[]> indexInserts = new ArrayList<>();
  private final List<String> insertFiles = new ArrayList<>();
  private final List<Long> insertPositions = new ArrayList<>();

  /** {@code filters} may be null: then every closed file whose statistics admit an identity is read. */
  public MergeOnReadPlanner(ObjectStore root, TableState state, TableLayout layout, StatsCache stats, PositionIndex index,
      ClosedFileFilters filters) {
    this.root = root;
    this.filters = filters;
    this.state = state;
    this.layout = layout;
    this.stats = stats;
    this.index = index;
    Map<String, String> conf = state.metadata.configuration();
    this.codec = TableProperties.codec(conf);
    this.currentCodec = TableProperties.currentCodec(conf);
    this.targetFileRows = TableProperties.targetFileRows(conf);
    this.changeDataFeed = TableProperties.changeDataFeed(conf);
    this.uploads = Uploads.of(root);
  }

  /** New data files this planner wrote (to delete when the commit loses its race). */
  public List<AddFile> written() {
    return written;
  }

  /** Plans {@code changes} with unowned new files; see {@link #plan(Map, SourcePartitions)}. */
  public CommitPlan plan(Map<VersionId, VersionChange> last) {
    return plan(last, SourcePartitions.none());
  }

  /**
   * Plans {@code changes} (already normalised; the last change per identity wins) and writes its files: the new rows
   * of each owner partition go to files of their own.
   */
  public CommitPlan plan(Map<VersionId, VersionChange> last, SourcePartitions owners) {
    DeletionMarks marks = new DeletionMarks();
    Set<VersionId> found = new HashSet<>();
    Set<VersionId> unresolved = new HashSet<>();
    for (VersionId id : last.keySet()) {
      byte[] bytes = IdentityBytes.of(id.key(), id.validFrom());
      long loc = index.get(bytes);
      if (loc >= 0) {
        marks.mark(index.file(loc), PositionIndex.positionOf(loc));
        found.add(id);
        indexRemovals.add(bytes);
      } else {
        unresolved.add(id);
      }
    }
    resolveClosed(unresolved, found, marks);
    List<Version> newCurrent = new ArrayList<>();
    List<Version> newClosed = new ArrayList<>();
    long inserted = 0;
    long updated = 0;
    long deleted = 0;
    for (Map.Entry<VersionId, VersionChange> e : last.entrySet()) {
      boolean existed = found.contains(e.getKey());
      if (e.getValue() instanceof VersionChange.Upsert u) {
        if (existed) {
          updated++;
        } else {
          inserted++;
        }
        (u.version().isCurrent() ? newCurrent : newClosed).add(u.version());
      } else if (existed) {
        deleted++;
      }
    }
    long output;
    List<AddFile> removed = new ArrayList<>();
    List<AddFile> added;
    List<AddCDCFile> changeData = List.of();
    try {
      output = writeByOwner(newCurrent, true, owners) + writeByOwner(newClosed, false, owners);
      added = new ArrayList<>(written);
      if (!marks.isEmpty()) {
        marks.write(root, uploads, state.adds.values(), removed, added);
      }
      if (changeDataFeed && !marks.isEmpty()) {
        // a commit that only inserts needs no change data: readers take its adds as its inserts
        List<ChangeRow> rows = ChangeData.of(rowsBefore(marks), last);
        changeData = ChangeDataFiles.write(root, uploads, layout, rows, currentCodec, true);
        changeData.forEach(c -> written.add(CommitPlan.written(c)));
      }
    } catch (RuntimeException e) {
      try {
        awaitUploads();
      } catch (RuntimeException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
    awaitUploads();
    LOG.debug("{}: planned on version {}: {} rows written, {} rows marked deleted in {} files", root, state.version,
        output, marks.rows(), removed.size());
    return new CommitPlan(List.copyOf(added), List.copyOf(removed), inserted, updated, deleted, 0, output,
        changeData);
  }

  /**
   * The rows the marks delete, as they are before this commit, by identity: read by their positions from the files
   * that hold them, each file once, decoding only the pages that hold a marked row.
   */
  private Map<VersionId, Version> rowsBefore(DeletionMarks marks) {
    Map<String, AddFile> byPath = new HashMap<>();
    state.adds.values().forEach(a -> byPath.put(a.path(), a));
    Map<VersionId, Version> out = new HashMap<>();
    marks.forEachFile((path, positions) -> DataFiles.readPositions(root, byPath.get(path), layout, state.version,
        positions, (v, position) -> out.put(VersionId.of(v), v)));
    return out;
  }

  /**
   * Waits until every file this plan wrote is stored; on the way out of a failure too, so that no upload lands after
   * the caller deleted the plan's files. A failed upload fails the plan.
   */
  private void awaitUploads() {
    try {
      uploads.await();
    } catch (java.io.IOException e) {
      throw TableErrors.io("write the new files of a commit to", root, e);
    }
  }

  /** Brings {@code index} to the state after this plan commits. */
  public void applyTo(PositionIndex target) {
    indexRemovals.forEach(target::remove);
    for (int i = 0; i < indexInserts.size(); i++) {
      target.put(indexInserts.get(i), PositionIndex.location(target.fileId(insertFiles.get(i)),
          insertPositions.get(i)));
    }
  }

  /** Writes the rows of each owner partition (-1: no owner) to files of their own. */
  private long writeByOwner(List<Version> rows, boolean current, SourcePartitions owners) {
    Map<Integer, List<Version>> byOwner = new TreeMap<>();
    for (Version v : rows) {
      byOwner.computeIfAbsent(owners.partitionOf(VersionId.of(v)), p -> new ArrayList<>()).add(v);
    }
    long out = 0;
    for (Map.Entry<Integer, List<Version>> e : byOwner.entrySet()) {
      out += write(e.getValue(), current, e.getKey());
    }
    return out;
  }

  /** Writes rows in identity order into files of at most targetFileRows; current rows are indexed. */
  private long write(List<Version> rows, boolean current, int owner) {
    IdentitySort.sort(rows);
    CompressionCodecName c = current ? currentCodec : codec;
    String dir = layout.partition(current).directory();
    String codecName = c.name().toLowerCase(Locale.ROOT);
    for (int from = 0; from < rows.size(); from += (int) targetFileRows) {
      List<Version> chunk = rows.subList(from, (int) Math.min(rows.size(), from + targetFileRows));
      String name = owner < 0 ? Buckets.closedFile(dir, codecName) : FileOwner.fileName(dir, owner, codecName);
      AddFile a = DataFiles.write(root, uploads, name, chunk, layout, current, c);
      if (owner >= 0) {
        a = FileOwner.tag(a, owner);
      }
      written.add(a);
      if (!current && filters != null) {
        // the next commits would otherwise read this file once to learn its identities
        filters.put(a, ClosedRowPositions.ofRows(chunk));
      }
      if (current) {
        for (int i = 0; i < chunk.size(); i++) {
          Version v = chunk.get(i);
          indexInserts.add(IdentityBytes.of(v.key(), v.validFrom()));
          insertFiles.add(a.path());
          insertPositions.add((long) i);
        }
      }
    }
    return rows.size();
  }

  /**
   * Finds identities absent from the index in the files outside the current partition and marks the rows found: in
   * the row positions this process keeps of a file it wrote or read, else by reading the key and valid_from columns
   * of the files whose statistics (and identity filter) admit one of them; a file read leaves its positions behind.
   */
  private void resolveClosed(Set<VersionId> unresolved, Set<VersionId> found, DeletionMarks marks) {
    if (filters != null) {
      // by path: the log keys a file by path and deletion vector, and a new mark leaves the file's identities as they were
      Set<String> live = new HashSet<>();
      state.adds.values().forEach(a -> live.add(a.path()));
      filters.retain(live);
    }
    if (unresolved.isEmpty()) {
      return;
    }
    ClosedFileCandidates candidates = new ClosedFileCandidates(unresolved);
    for (AddFile f : state.adds.values()) {
      if (layout.isCurrentFile(f)) {
        continue;
      }
      ClosedRowPositions positions = filters == null ? null : filters.positions(f);
      if (positions != null) {
        List<Map.Entry<VersionId, Long>> rows = candidates.find(stats.get(f, layout), id -> !found.contains(id),
            positions);
        if (rows != null) {
          markLive(f, rows, found, marks);
          continue;
        }
        // two rows of the file share one identity's hash: only reading the file tells which
      } else {
        IdentityFilter filter = filters == null ? null : filters.get(f);
        if (!candidates.mayHold(stats.get(f, layout), id -> !found.contains(id), filter)) {
          continue;
        }
      }
      ClosedRowPositions.Builder learned = filters == null ? null : new ClosedRowPositions.Builder(1024);
      try (DataFiles.RowIterator it = DataFiles.readIdentities(root, f, layout, state.version)) {
        while (it.hasNext()) {
          Version v = it.next();
          VersionId id = VersionId.of(v);
          if (unresolved.contains(id) && found.add(id)) {
            marks.mark(f.path(), it.position());
          }
          if (learned != null) {
            learned.add(IdentityBytes.of(v.key(), v.validFrom()), it.position());
          }
        }
      }
      if (learned != null) {
        filters.put(f, learned.build(f.deletedRows()));
      }
    }
  }

  /** Marks the rows found through a file's positions, except those its deletion vector already deletes. */
  private void markLive(AddFile f, List<Map.Entry<VersionId, Long>> rows, Set<VersionId> found,
      DeletionMarks marks) {
    if (rows.isEmpty()) {
      return;
    }
    // an identity corrected before has a deleted row here and its live row in a newer file
    RoaringBitmapArray deleted = f.deletionVector() == null ? null : DeletionVectorFiles.read(root,
        f.deletionVector());
    for (Map.Entry<VersionId, Long> r : rows) {
      if ((deleted == null || !deleted.contains(r.getValue())) && found.add(r.getKey())) {
        marks.mark(f.path(), r.getValue());
      }
    }
  }

}
