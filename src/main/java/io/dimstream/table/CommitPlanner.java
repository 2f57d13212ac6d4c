package io.dimstream.table;

import io.dimstream.config.Column;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans and writes the data files of one batch of version changes against one table state (copy-on-write):
 * the current-partition bucket files of the changed keys are rewritten; closed versions are appended as new
 * files; a closed-partition file is rewritten only when it holds a changed identity (found through its key and
 * valid_from statistics, then confirmed by reading it).
 */
final class CommitPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(CommitPlanner.class);

  /** The files written and removed, and the row counts for commitInfo's operationMetrics. */
  record Plan(List<AddFile> added, List<AddFile> removed, long inserted, long updated, long deleted, long copied,
      long outputRows) {
    boolean isEmpty() {
      return added.isEmpty() && removed.isEmpty();
    }
  }

  private final DeltaTable table;
  private final TableState state;
  private final TableLayout layout;
  private final int buckets;
  private final CompressionCodecName codec;
  private final CompressionCodecName currentCodec;
  private final long targetFileRows;
  private final List<AddFile> added = new ArrayList<>();

  CommitPlanner(DeltaTable table, TableState state, TableLayout layout) {
    this.table = table;
    this.state = state;
    this.layout = layout;
    Map<String, String> conf = state.metadata.configuration();
    this.buckets = TableProperties.buckets(conf);
    this.codec = TableProperties.codec(conf);
    this.currentCodec = TableProperties.currentCodec(conf);
    this.targetFileRows = TableProperties.targetFileRows(conf);
  }

  /** Files already written by this planner (to delete when the commit loses its race). */
  List<AddFile> written() {
    return added;
  }

  Plan plan(List<VersionChange> changes) {
    Map<VersionId, VersionChange> last = new LinkedHashMap<>();
    for (VersionChange c : changes) {
      VersionChange n = normalize(c);
      last.put(new VersionId(n.key(), n.validFrom()), n);
    }
    Map<Integer, List<AddFile>> currentByBucket = new HashMap<>();
    List<AddFile> unbucketed = new ArrayList<>();
    List<AddFile> closedFiles = new ArrayList<>();
    for (AddFile a : state.adds.values()) {
      if (isCurrent(a)) {
        int b = Buckets.parse(a.path(), buckets);
        if (b < 0) {
          unbucketed.add(a);
        } else {
          currentByBucket.computeIfAbsent(b, x -> new ArrayList<>()).add(a);
        }
      } else {
        closedFiles.add(a);
      }
    }
    if (unbucketed.isEmpty() && currentByBucket.values().stream().allMatch(l -> l.size() == 1)) {
      try {
        return mergePlan(last, currentByBucket, closedFiles);
      } catch (UnsortedBucketException e) {
        LOG.warn("{}: {}; rewriting the touched buckets through memory instead", table.path(), e.getMessage());
        table.deleteWritten(added);
        added.clear();
      }
    }
    // current partition: read every touched bucket (all of them when another engine left unbucketed files)
    Set<Integer> touched = new HashSet<>();
    for (VersionId id : last.keySet()) {
      touched.add(Buckets.of(id.key(), buckets));
    }
    if (!unbucketed.isEmpty()) {
      touched.addAll(currentByBucket.keySet());
    }
    Map<Integer, Map<VersionId, Version>> bucketRows = new HashMap<>();
    Set<Integer> dirty = new HashSet<>();
    List<AddFile> removed = new ArrayList<>();
    long rowsRead = 0;
    for (int b : touched) {
      Map<VersionId, Version> rows = bucketRows.computeIfAbsent(b, x -> new HashMap<>());
      for (AddFile f : currentByBucket.getOrDefault(b, List.of())) {
        rowsRead += readInto(f, rows);
      }
    }
    for (AddFile f : unbucketed) {
      Map<VersionId, Version> tmp = new HashMap<>();
      rowsRead += readInto(f, tmp);
      tmp.forEach((id, v) -> bucketRows.computeIfAbsent(Buckets.of(id.key(), buckets), x -> new HashMap<>()).put(id, v));
      removed.add(f);
      dirty.addAll(touched);
    }
    // closed partition: only files whose statistics admit a changed identity, and only if it is really there
    Set<VersionId> unresolved = new HashSet<>();
    for (VersionId id : last.keySet()) {
      if (!bucketRows.get(Buckets.of(id.key(), buckets)).containsKey(id)) {
        unresolved.add(id);
      }
    }
    Set<VersionId> foundClosed = new HashSet<>();
    List<List<Version>> keptClosed = new ArrayList<>();
    long copied = resolveClosed(closedFiles, unresolved, foundClosed, keptClosed, removed);
    // apply the changes, the last one per identity
    long inserted = 0;
    long updated = 0;
    long deleted = 0;
    List<Version> newClosed = new ArrayList<>();
    for (Map.Entry<VersionId, VersionChange> e : last.entrySet()) {
      VersionId id = e.getKey();
      int b = Buckets.of(id.key(), buckets);
      Map<VersionId, Version> rows = bucketRows.get(b);
      boolean existed = rows.remove(id) != null;
      if (existed) {
        dirty.add(b);
      }
      existed |= foundClosed.contains(id);
      if (e.getValue() instanceof VersionChange.Upsert u) {
        if (existed) {
          updated++;
        } else {
          inserted++;
        }
        if (u.version().isCurrent()) {
          rows.put(id, u.version());
          dirty.add(b);
        } else {
          newClosed.add(u.version());
        }
      } else if (existed) {
        deleted++;
      }
    }
    // write: dirty buckets, new closed versions, rewritten closed files
    long output = 0;
    String currentDir = layout.isCurrent + "=true";
    for (int b : new TreeSet<>(dirty)) {
      removed.addAll(currentByBucket.getOrDefault(b, List.of()));
      Map<VersionId, Version> rows = bucketRows.get(b);
      if (!rows.isEmpty()) {
        List<Version> sorted = new ArrayList<>(rows.values());
        sorted.sort(ValueOrder.BY_IDENTITY);
        added.add(DataFiles.write(table.path(), Buckets.currentFile(currentDir, b, buckets,
            currentCodec.name().toLowerCase(Locale.ROOT)), sorted, layout, true, currentCodec));
        output += sorted.size();
      }
    }
    // rows of dirty buckets that did not change were copied
    for (int b : dirty) {
      copied += bucketRows.get(b).size();
    }
    copied -= countCurrentUpserts(last);
    output += writeClosed(newClosed, keptClosed);
    LOG.debug("{}: planned on version {}: read {} current rows, {} closed files rewritten",
        table.path(), state.version, rowsRead, keptClosed.size());
    return new Plan(List.copyOf(added), List.copyOf(removed), inserted, updated, deleted, Math.max(0, copied),
        output);
  }

  /** A bucket file that is not in identity order (not written by dimstream): the streaming merge cannot use it. */
  private static final class UnsortedBucketException extends RuntimeException {
    UnsortedBucketException(String message) {
      super(message, null, false, false);
    }
  }

  static int compareIdentity(VersionId a, VersionId b) {
    int c = ValueOrder.compareKeys(a.key(), b.key());
    return c != 0 ? c : a.validFrom().compareTo(b.validFrom());
  }

  /**
   * The common case (every bucket is one file dimstream wrote, sorted by identity): each touched bucket file is
   * merged in one pass with the bucket's changes, sorted the same way, so memory holds the changes and one
   * row group, never a whole bucket.
   */
  private Plan mergePlan(Map<VersionId, VersionChange> last, Map<Integer, List<AddFile>> currentByBucket,
      List<AddFile> closedFiles) {
    Map<Integer, List<Map.Entry<VersionId, VersionChange>>> byBucket = new TreeMap<>();
    for (Map.Entry<VersionId, VersionChange> e : last.entrySet()) {
      byBucket.computeIfAbsent(Buckets.of(e.getKey().key(), buckets), x -> new ArrayList<>()).add(e);
    }
    List<AddFile> removed = new ArrayList<>();
    Set<VersionId> foundCurrent = new HashSet<>();
    long copied = 0;
    long output = 0;
    String currentDir = layout.isCurrent + "=true";
    String currentCodecName = currentCodec.name().toLowerCase(Locale.ROOT);
    for (Map.Entry<Integer, List<Map.Entry<VersionId, VersionChange>>> bucket : byBucket.entrySet()) {
      List<Map.Entry<VersionId, VersionChange>> changes = bucket.getValue();
      changes.sort((x, y) -> compareIdentity(x.getKey(), y.getKey()));
      List<AddFile> old = currentByBucket.getOrDefault(bucket.getKey(), List.of());
      DataFiles.RowIterator rows = old.isEmpty() ? null : DataFiles.read(path(old.get(0)), layout, state.version);
      try {
        BucketMerge merge = new BucketMerge(rows, changes, foundCurrent, old.isEmpty() ? "" : old.get(0).path());
        List<Version> firstRow = new ArrayList<>(1);
        if (merge.hasNext()) {
          firstRow.add(merge.next());
        }
        if (!firstRow.isEmpty()) {
          Iterable<Version> all = () -> new java.util.Iterator<>() {
            private boolean first = true;

            @Override
            public boolean hasNext() {
              return first || merge.hasNext();
            }

            @Override
            public Version next() {
              if (first) {
                first = false;
                return firstRow.get(0);
              }
              return merge.next();
            }
          };
          added.add(DataFiles.write(table.path(), Buckets.currentFile(currentDir, bucket.getKey(), buckets,
              currentCodecName), all, layout, true, currentCodec));
        }
        if (merge.changed || old.isEmpty()) {
          removed.addAll(old);
        } else if (!firstRow.isEmpty()) {
          // nothing changed in this bucket (retractions of absent versions): keep the old file
          AddFile unneeded = added.remove(added.size() - 1);
          table.deleteWritten(List.of(unneeded));
          continue;
        }
        copied += merge.copied;
        output += merge.emitted;
      } finally {
        if (rows != null) {
          rows.close();
        }
      }
    }
    // closed partition: only files whose statistics admit a changed identity, and only if it is really there
    Set<VersionId> unresolved = new HashSet<>();
    for (VersionId id : last.keySet()) {
      if (!foundCurrent.contains(id)) {
        unresolved.add(id);
      }
    }
    Set<VersionId> foundClosed = new HashSet<>();
    List<List<Version>> keptClosed = new ArrayList<>();
    copied += resolveClosed(closedFiles, unresolved, foundClosed, keptClosed, removed);
    long inserted = 0;
    long updated = 0;
    long deleted = 0;
    List<Version> newClosed = new ArrayList<>();
    for (Map.Entry<VersionId, VersionChange> e : last.entrySet()) {
      boolean existed = foundCurrent.contains(e.getKey()) || foundClosed.contains(e.getKey());
      if (e.getValue() instanceof VersionChange.Upsert u) {
        if (existed) {
          updated++;
        } else {
          inserted++;
        }
        if (!u.version().isCurrent()) {
          newClosed.add(u.version());
        }
      } else if (existed) {
        deleted++;
      }
    }
    output += writeClosed(newClosed, keptClosed);
    LOG.debug("{}: merged {} buckets on version {}; {} closed files rewritten", table.path(), byBucket.size(),
        state.version, keptClosed.size());
    return new Plan(List.copyOf(added), List.copyOf(removed), inserted, updated, deleted, copied, output);
  }

  /** Reads the closed files that may hold an unresolved identity; returns the rows copied into their rewrites. */
  private long resolveClosed(List<AddFile> closedFiles, Set<VersionId> unresolved, Set<VersionId> foundClosed,
      List<List<Version>> keptClosed, List<AddFile> removed) {
    if (unresolved.isEmpty()) {
      return 0;
    }
    long copied = 0;
    // identities by valid_from, so each file's [min, max] valid_from range is found by binary search
    VersionId[] byFrom = unresolved.toArray(VersionId[]::new);
    Arrays.sort(byFrom, Comparator.comparingLong(id -> id.validFrom().first()));
    long[] froms = new long[byFrom.length];
    for (int i = 0; i < byFrom.length; i++) {
      froms[i] = byFrom[i].validFrom().first();
    }
    for (AddFile f : closedFiles) {
      FileStats st = table.stats(f, layout);
      int lo = st.validFromMin == null ? 0 : lowerBound(froms, st.validFromMin);
      int hi = st.validFromMax == null ? froms.length : lowerBound(froms, st.validFromMax + 1);
      boolean candidate = false;
      for (int i = lo; i < hi && !candidate; i++) {
        candidate = st.mayContainKey(byFrom[i].key());
      }
      if (!candidate) {
        continue;
      }
      List<Version> kept = new ArrayList<>();
      boolean hit = false;
      try (DataFiles.RowIterator it = DataFiles.read(path(f), layout, state.version)) {
        while (it.hasNext()) {
          Version v = it.next();
          VersionId id = new VersionId(v.key(), v.validFrom());
          if (unresolved.contains(id)) {
            foundClosed.add(id);
            hit = true;
          } else {
            kept.add(v);
          }
        }
      }
      if (hit) {
        removed.add(f);
        keptClosed.add(kept);
        copied += kept.size();
      }
    }
    return copied;
  }

  /** Writes the new closed versions (in files of at most targetFileRows) and the rewritten closed files. */
  private long writeClosed(List<Version> newClosed, List<List<Version>> keptClosed) {
    String closedDir = layout.isCurrent + "=false";
    String codecName = codec.name().toLowerCase(Locale.ROOT);
    long output = 0;
    newClosed.sort(ValueOrder.BY_IDENTITY);
    for (int from = 0; from < newClosed.size(); from += (int) targetFileRows) {
      List<Version> chunk = newClosed.subList(from, (int) Math.min(newClosed.size(), from + targetFileRows));
      added.add(DataFiles.write(table.path(), Buckets.closedFile(closedDir, codecName), chunk, layout, false, codec));
      output += chunk.size();
    }
    for (List<Version> kept : keptClosed) {
      if (!kept.isEmpty()) {
        added.add(DataFiles.write(table.path(), Buckets.closedFile(closedDir, codecName), kept, layout, false, codec));
        output += kept.size();
      }
    }
    return output;
  }

  /** One pass over a sorted bucket file and the bucket's sorted changes, yielding the bucket's new rows. */
  private static final class BucketMerge implements java.util.Iterator<Version> {
    private final DataFiles.RowIterator rows;
    private final List<Map.Entry<VersionId, VersionChange>> changes;
    private final Set<VersionId> found;
    private final String file;
    private int ci;
    private Version pendingRow;
    private VersionId lastRowId;
    private Version next;
    boolean changed;
    long copied;
    long emitted;

    BucketMerge(DataFiles.RowIterator rows, List<Map.Entry<VersionId, VersionChange>> changes, Set<VersionId> found,
        String file) {
      this.rows = rows;
      this.changes = changes;
      this.found = found;
      this.file = file;
      advance();
    }

    private Version nextRow() {
      if (pendingRow != null) {
        Version r = pendingRow;
        pendingRow = null;
        return r;
      }
      if (rows == null || !rows.hasNext()) {
        return null;
      }
      Version r = rows.next();
      VersionId id = new VersionId(r.key(), r.validFrom());
      if (lastRowId != null && compareIdentity(lastRowId, id) >= 0) {
        throw new UnsortedBucketException("bucket file " + file + " is not sorted by (key, valid_from)");
      }
      lastRowId = id;
      return r;
    }

    private void advance() {
      next = null;
      while (next == null) {
        Version r = nextRow();
        Map.Entry<VersionId, VersionChange> c = ci < changes.size() ? changes.get(ci) : null;
        if (r == null && c == null) {
          return;
        }
        int cmp = r == null ? 1 : c == null ? -1 : compareIdentity(new VersionId(r.key(), r.validFrom()), c.getKey());
        if (cmp < 0) {
          copied++;
          next = r;
          break;
        }
        if (cmp == 0) {
          found.add(c.getKey());
          changed = true;
        } else {
          pendingRow = r;
        }
        ci++;
        if (c.getValue() instanceof VersionChange.Upsert u && u.version().isCurrent()) {
          changed = true;
          next = u.version();
        }
      }
      emitted++;
    }

    @Override
    public boolean hasNext() {
      return next != null;
    }

    @Override
    public Version next() {
      if (next == null) {
        throw new java.util.NoSuchElementException();
      }
      Version v = next;
      advance();
      return v;
    }
  }

  /** The first index whose value is at least {@code v}. */
  private static int lowerBound(long[] sorted, long v) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static long countCurrentUpserts(Map<VersionId, VersionChange> last) {
    long n = 0;
    for (VersionChange c : last.values()) {
      if (c instanceof VersionChange.Upsert u && u.version().isCurrent()) {
        n++;
      }
    }
    return n;
  }

  private int readInto(AddFile f, Map<VersionId, Version> rows) {
    int n = 0;
    try (DataFiles.RowIterator it = DataFiles.read(path(f), layout, state.version)) {
      while (it.hasNext()) {
        Version v = it.next();
        rows.put(new VersionId(v.key(), v.validFrom()), v);
        n++;
      }
    }
    return n;
  }

  private Path path(AddFile f) {
    return DataFiles.resolve(table.path(), f.path());
  }

  private boolean isCurrent(AddFile a) {
    return "true".equals(a.partitionValues().get(layout.isCurrent));
  }

  /** Checks a change against the table's shape and gives its key the column types. */
  private VersionChange normalize(VersionChange c) {
    int parts = layout.validFromColumns.size();
    BusinessKey key = layout.normalizeKey(c.key());
    if (c.validFrom() == null || c.validFrom().size() != parts) {
      throw TableErrors.badChange(table.path(), "version " + c.key() + "@" + c.validFrom() + " needs a valid_from of "
          + parts + " sequence part(s)");
    }
    if (c instanceof VersionChange.Upsert u) {
      Version v = u.version();
      if (v.attributes().size() != layout.attributeColumns.size()) {
        throw TableErrors.badChange(table.path(), "version " + c.key() + "@" + c.validFrom() + " has "
            + v.attributes().size() + " attributes but the table has " + layout.attributeColumns.size() + " "
            + layout.attributeColumns.stream().map(Column::name).toList());
      }
      if (v.validTo() != null && v.validTo().size() != parts) {
        throw TableErrors.badChange(table.path(), "version " + c.key() + "@" + c.validFrom()
            + " needs a valid_to of " + parts + " sequence part(s)");
      }
      return key == c.key() ? u : new VersionChange.Upsert(new Version(key, v.validFrom(), v.validTo(),
          v.attributes()), u.kind());
    }
    return key == c.key() ? c : new VersionChange.Retraction(key, c.validFrom());
  }
}
