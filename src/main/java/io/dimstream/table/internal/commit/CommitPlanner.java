package io.dimstream.table.internal.commit;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.FileStats;
import io.dimstream.table.internal.files.StatsCache;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.files.ValueOrder;
import io.dimstream.table.internal.log.TableState;
import io.dimstream.types.Column;
import io.dimstream.storage.Uploads;
import io.dimstream.table.internal.actions.AddCDCFile;
import io.dimstream.table.internal.cdc.ChangeData;
import io.dimstream.table.internal.cdc.ChangeDataFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
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
public final class CommitPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(CommitPlanner.class);

  private final ObjectStore root;
  private final StatsCache stats;
  private final TableState state;
  private final TableLayout layout;
  private final int buckets;
  private final CompressionCodecName codec;
  private final CompressionCodecName currentCodec;
  private final long targetFileRows;
  private final boolean changeDataFeed;
  private final List<AddFile> added = new ArrayList<>();
  /** The change data files written (as entries to delete when the commit loses its race). */
  private final List<AddFile> changeDataWritten = new ArrayList<>();
  /** The rows of the table the plan replaces or removes, by identity, as they were; kept for the change data feed. */
  private final Map<VersionId, Version> before;

  public CommitPlanner(ObjectStore root, TableState state, TableLayout layout, StatsCache stats) {
    this.root = root;
    this.stats = stats;
    this.state = state;
    this.layout = layout;
    Map<String, String> conf = state.metadata.configuration();
    this.buckets = TableProperties.buckets(conf);
    this.codec = TableProperties.codec(conf);
    this.currentCodec = TableProperties.currentCodec(conf);
    this.targetFileRows = TableProperties.targetFileRows(conf);
    this.changeDataFeed = TableProperties.changeDataFeed(conf);
    this.before = changeDataFeed ? new HashMap<>() : null;
  }

  /** Files already written by this planner (to delete when the commit loses its race). */
  public List<AddFile> written() {
    if (changeDataWritten.isEmpty()) {
      return added;
    }
    List<AddFile> all = new ArrayList<>(added);
    all.addAll(changeDataWritten);
    return all;
  }

  /**
   * Plans {@code changes} (the last change per identity wins) and writes the files of the plan. Each bucket is
   * decided before anything is written: it is rewritten when a change opens a version in it, when it holds the
   * identity of a change, or when its rows must move (files another engine left unbucketed).
   */
  public CommitPlan plan(List<VersionChange> changes) {
    Map<VersionId, VersionChange> last = lastPerIdentity(root, layout, changes);
    Map<Integer, List<Map.Entry<VersionId, VersionChange>>> byBucket = new HashMap<>();
    for (Map.Entry<VersionId, VersionChange> e : last.entrySet()) {
      byBucket.computeIfAbsent(Buckets.of(e.getKey().key(), buckets), x -> new ArrayList<>()).add(e);
    }
    byBucket.values().forEach(l -> l.sort((x, y) -> IdentityOrder.ORDER.compare(x.getKey(), y.getKey())));
    Map<Integer, List<AddFile>> currentByBucket = new HashMap<>();
    List<AddFile> unbucketed = new ArrayList<>();
    List<AddFile> closedFiles = new ArrayList<>();
    for (AddFile a : state.adds.values()) {
      if (layout.isCurrentFile(a)) {
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
    List<AddFile> removed = new ArrayList<>(unbucketed);
    // buckets not held as one file: read into memory (every bucket when another engine left unbucketed files)
    Map<Integer, Map<VersionId, Version>> inMemory = new HashMap<>();
    if (!unbucketed.isEmpty()) {
      for (AddFile f : unbucketed) {
        readInto(f, inMemory);
      }
      currentByBucket.forEach((b, files) -> files.forEach(f -> readInto(f, inMemory)));
    } else {
      currentByBucket.forEach((b, files) -> {
        if (files.size() > 1 && byBucket.containsKey(b)) {
          files.forEach(f -> readInto(f, inMemory));
        }
      });
    }
    Set<Integer> moved = new HashSet<>();
    if (!unbucketed.isEmpty()) {
      moved.addAll(inMemory.keySet());
      moved.addAll(currentByBucket.keySet());
    }
    // current partition: one merge per rewritten bucket, streaming when the bucket is one file
    Set<VersionId> found = new HashSet<>();
    long copied = 0;
    long output = 0;
    TreeSet<Integer> candidates = new TreeSet<>(byBucket.keySet());
    candidates.addAll(moved);
    for (int b : candidates) {
      List<Map.Entry<VersionId, VersionChange>> bucketChanges = byBucket.getOrDefault(b, List.of());
      List<AddFile> old = currentByBucket.getOrDefault(b, List.of());
      Map<VersionId, Version> memory = inMemory.get(b);
      if (!moved.contains(b) && !opensVersion(bucketChanges) && !holdsAny(memory, old, bucketChanges)) {
        continue;
      }
      DataFiles.RowIterator file = memory == null && !old.isEmpty() ? DataFiles.read(root, old.get(0), layout,
          state.version) : null;
      try {
        Iterator<Version> rows = file != null ? file : memory == null ? Collections.emptyIterator() : sorted(memory);
        BucketMerge merge = new BucketMerge(rows, bucketChanges, found, old.isEmpty() ? "" : old.get(0).path(),
            before);
        if (merge.hasNext()) {
          added.add(DataFiles.write(root, Buckets.bucketFile(layout.current.directory(), b, buckets,
              currentCodec.name().toLowerCase(Locale.ROOT)), () -> merge, layout, true, currentCodec));
        }
        removed.addAll(old);
        copied += merge.copied;
        output += merge.emitted;
      } finally {
        if (file != null) {
          file.close();
        }
      }
    }
    // closed partition: only files whose statistics admit a changed identity, and only if it is really there
    Set<VersionId> unresolved = new HashSet<>(last.keySet());
    unresolved.removeAll(found);
    List<List<Version>> keptClosed = new ArrayList<>();
    copied += resolveClosed(closedFiles, unresolved, found, keptClosed, removed);
    long inserted = 0;
    long updated = 0;
    long deleted = 0;
    List<Version> newClosed = new ArrayList<>();
    for (Map.Entry<VersionId, VersionChange> e : last.entrySet()) {
      boolean existed = found.contains(e.getKey());
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
    LOG.debug("{}: planned on version {}: {} buckets rewritten, {} closed files rewritten", root, state.version,
        candidates.size(), keptClosed.size());
    List<AddCDCFile> changeData = List.of();
    if (changeDataFeed && !removed.isEmpty()) {
      // a commit that removes no file only inserts: readers take its adds as its inserts
      Uploads uploads = Uploads.of(root);
      changeData = ChangeDataFiles.write(root, uploads, layout, ChangeData.of(before, last), currentCodec, true);
      changeData.forEach(c -> changeDataWritten.add(CommitPlan.written(c)));
      try {
        uploads.await();
      } catch (IOException e) {
        throw TableErrors.io("write the change data of a commit to", root, e);
      }
    }
    return new CommitPlan(List.copyOf(added), List.copyOf(removed), inserted, updated, deleted, copied, output,
        changeData);
  }

  private static boolean opensVersion(List<Map.Entry<VersionId, VersionChange>> changes) {
    for (Map.Entry<VersionId, VersionChange> e : changes) {
      if (e.getValue() instanceof VersionChange.Upsert u && u.version().isCurrent()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the bucket holds the identity of one of {@code changes}: looked up in memory, or read from its file
   * when the file's key statistics admit one (a bucket whose changes only close or retract versions).
   */
  private boolean holdsAny(Map<VersionId, Version> memory, List<AddFile> old,
      List<Map.Entry<VersionId, VersionChange>> changes) {
    if (changes.isEmpty()) {
      return false;
    }
    if (memory != null) {
      return changes.stream().anyMatch(e -> memory.containsKey(e.getKey()));
    }
    if (old.isEmpty()) {
      return false;
    }
    FileStats st = stats.get(old.get(0), layout);
    if (changes.stream().noneMatch(e -> st.mayContainKey(e.getKey().key()))) {
      return false;
    }
    Set<VersionId> ids = new HashSet<>();
    changes.forEach(e -> ids.add(e.getKey()));
    try (DataFiles.RowIterator it = DataFiles.read(root, old.get(0), layout, state.version)) {
      while (it.hasNext()) {
        Version v = it.next();
        if (ids.contains(VersionId.of(v))) {
          return true;
        }
      }
    }
    return false;
  }

  private static Iterator<Version> sorted(Map<VersionId, Version> rows) {
    List<Version> out = new ArrayList<>(rows.values());
    out.sort(ValueOrder.BY_IDENTITY);
    return out.iterator();
  }

  /** Reads the closed files that may hold an unresolved identity; returns the rows copied into their rewrites. */
  private long resolveClosed(List<AddFile> closedFiles, Set<VersionId> unresolved, Set<VersionId> foundClosed,
      List<List<Version>> keptClosed, List<AddFile> removed) {
    if (unresolved.isEmpty()) {
      return 0;
    }
    long copied = 0;
    ClosedFileCandidates candidates = new ClosedFileCandidates(unresolved);
    for (AddFile f : closedFiles) {
      if (!candidates.mayHold(stats.get(f, layout), id -> true)) {
        continue;
      }
      List<Version> kept = new ArrayList<>();
      boolean hit = false;
      try (DataFiles.RowIterator it = DataFiles.read(root, f, layout, state.version)) {
        while (it.hasNext()) {
          Version v = it.next();
          VersionId id = VersionId.of(v);
          if (unresolved.contains(id)) {
            foundClosed.add(id);
            if (before != null) {
              before.put(id, v);
            }
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
    String closedDir = layout.closed.directory();
    String codecName = codec.name().toLowerCase(Locale.ROOT);
    long output = 0;
    newClosed.sort(ValueOrder.BY_IDENTITY);
    for (int from = 0; from < newClosed.size(); from += (int) targetFileRows) {
      List<Version> chunk = newClosed.subList(from, (int) Math.min(newClosed.size(), from + targetFileRows));
      added.add(DataFiles.write(root, Buckets.closedFile(closedDir, codecName), chunk, layout, false, codec));
      output += chunk.size();
    }
    for (List<Version> kept : keptClosed) {
      if (!kept.isEmpty()) {
        added.add(DataFiles.write(root, Buckets.closedFile(closedDir, codecName), kept, layout, false, codec));
        output += kept.size();
      }
    }
    return output;
  }


  /** Reads a current file into per-bucket maps by identity (a later file's row of one identity wins). */
  private void readInto(AddFile f, Map<Integer, Map<VersionId, Version>> byBucket) {
    try (DataFiles.RowIterator it = DataFiles.read(root, f, layout, state.version)) {
      while (it.hasNext()) {
        Version v = it.next();
        byBucket.computeIfAbsent(Buckets.of(v.key(), buckets), x -> new HashMap<>())
            .put(VersionId.of(v), v);
      }
    }
  }

  /** The changes checked and normalised ({@link #normalize}), the last one per identity, in first-seen order. */
  static Map<VersionId, VersionChange> lastPerIdentity(ObjectStore root, TableLayout layout, List<VersionChange> changes) {
    Map<VersionId, VersionChange> last = new LinkedHashMap<>();
    for (VersionChange c : changes) {
      VersionChange n = normalize(root, layout, c);
      last.put(VersionId.of(n), n);
    }
    return last;
  }

  /** Checks a change against the table's shape and gives its key the column types. */
  static VersionChange normalize(ObjectStore root, TableLayout layout, VersionChange c) {
    int parts = layout.validFromColumns.size();
    BusinessKey key = layout.normalizeKey(c.key());
    if (c.validFrom() == null || c.validFrom().size() != parts) {
      throw TableErrors.badChange(root, "version " + c.key() + "@" + c.validFrom() + " needs a valid_from of "
          + parts + " sequence part(s)");
    }
    if (c instanceof VersionChange.Upsert u) {
      Version v = u.version();
      if (v.attributes().size() != layout.attributeColumns.size()) {
        throw TableErrors.badChange(root, "version " + c.key() + "@" + c.validFrom() + " has "
            + v.attributes().size() + " attributes but the table has " + layout.attributeColumns.size() + " "
            + layout.attributeColumns.stream().map(Column::name).toList());
      }
      if (v.validTo() != null && v.validTo().size() != parts) {
        throw TableErrors.badChange(root, "version " + c.key() + "@" + c.validFrom()
            + " needs a valid_to of " + parts + " sequence part(s)");
      }
      return key == c.key() ? u : new VersionChange.Upsert(new Version(key, v.validFrom(), v.validTo(),
          v.attributes()), u.kind());
    }
    return key == c.key() ? c : new VersionChange.Retraction(key, c.validFrom());
  }
}
