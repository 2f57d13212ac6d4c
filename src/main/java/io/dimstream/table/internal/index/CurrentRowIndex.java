package io.dimstream.table.internal.index;

import io.dimstream.storage.ObjectStore;
import io.dimstream.model.Version;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.log.TableState;
import io.dimstream.table.internal.dv.DeletionVectorFiles;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The position index of one table, kept in step with the versions this process commits. When other writers changed
 * the current files, it catches up by reading the key and valid_from columns of only the files they added, removed
 * or re-marked (several compactors on one table commit between each other's commits); when most files changed it is
 * rebuilt from all current files minus their deletion vectors. Callers hold its monitor for the length of a commit.
 *
 * <p>Given a directory, the index lives there on disk ({@link PersistedPositionIndex}) with the table version it
 * reflects: a restart adopts it and catches up with the commits made since, and builds it again only when it is
 * missing, belongs to another table, or reflects a version the table no longer has. A directory that cannot be used
 * (another process holds it) leaves the index on the heap, with a warning.
 */
public final class CurrentRowIndex implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CurrentRowIndex.class);

  private final ObjectStore root;
  private final ClosedFileFilters closedFilters = new ClosedFileFilters();
  /** The directories whose index a writer of this process holds, each by one writer at a time. */
  private static final Set<Path> CLAIMED = ConcurrentHashMap.newKeySet();

  /** Where the index is kept on disk; null: on the heap. */
  private Path persistDir;
  /** The directory this index claimed in {@link #CLAIMED}, released on close; null when none. */
  private Path claim;
  private PersistedPositionIndex persisted;
  private PositionIndex index;
  private long version = -1;
  /** The newest table version whose changes the index holds: looking back to an older one means a rebuild. */
  private long newest = -1;
  /** The current files the index reflects, by path. */
  private Map<String, AddFile> files = Map.of();

  public CurrentRowIndex(ObjectStore root) {
    this(root, null);
  }

  /** @param persistDir where to keep the index on disk across restarts; null: on the heap */
  public CurrentRowIndex(ObjectStore root, Path persistDir) {
    this.root = root;
    this.persistDir = persistDir;
  }

  /** The index for {@code state}, rebuilt when the current files differ from those it reflects. */
  public PositionIndex at(TableState state, TableLayout layout) {
    if (index != null && version == state.version) {
      return index;
    }
    if (index == null && persistDir != null && persisted == null) {
      adoptPersisted(state);
      if (index != null && version == state.version) {
        return index;
      }
    }
    Map<String, AddFile> now = currentFiles(state, layout);
    if (index != null && (state.version < newest
        || !sameFiles(now, files) && !catchUp(now, layout, state.version))) {
      index = null; // catch-up only goes forward: a deletion vector of a newer version is never undone
    }
    if (index == null) {
      long start = System.nanoTime();
      index = build(state, layout);
      LOG.info("{}: rebuilt the position index at version {}: {} rows of {} current files in {} ms ({} bytes)",
          root, state.version, index.size(), now.size(), (System.nanoTime() - start) / 1_000_000, index.bytes());
    }
    files = now;
    version = state.version;
    newest = state.version;
    record(state);
    return index;
  }

  /** Opens the index kept in {@link #persistDir} and takes it as the index when it reflects a version of this table. */
  private void adoptPersisted(TableState state) {
    Path claimed = persistDir.toAbsolutePath().normalize();
    if (!CLAIMED.add(claimed)) {
      // another writer of this process (a second compactor of the table) keeps its index there: this one must not
      // open, wipe or rebuild that directory under it
      LOG.info("{}: the position index in {} is used by another writer of this process; this one keeps its own on "
          + "the heap", root, persistDir);
      persistDir = null;
      return;
    }
    claim = claimed;
    try {
      persisted = PersistedPositionIndex.open(persistDir);
    } catch (UncheckedIOException e) {
      LOG.warn("{}: the position index stays on the heap: {}", root, e.getMessage());
      persistDir = null;
      release();
      return;
    }
    PersistedPositionIndex.Reflected r = persisted.reflected();
    if (r == null || !r.tableId().equals(state.metadata.id()) || r.newest() > state.version) {
      LOG.info("{}: the position index in {} {}; building it", root, persistDir, r == null ? "is empty or incomplete"
          : r.newest() > state.version ? "reflects version " + r.newest() + ", newer than the table's " + state.version
          : "belongs to another table");
      return;
    }
    index = persisted;
    files = r.files();
    version = r.version();
    newest = r.newest();
    LOG.info("{}: loaded the position index from {}: {} rows at version {}, the table is at {}", root, persistDir,
        persisted.size(), r.newest(), state.version);
  }

  /** Writes down what the index reflects, when it is kept on disk. */
  private void record(TableState reflected) {
    if (persisted != null && index == persisted) {
      persisted.record(reflected.metadata.id(), version, newest, files);
    }
  }

  /** The identity filters of the closed files commits have read; they stay valid across versions. */
  public ClosedFileFilters closedFilters() {
    return closedFilters;
  }

  /** The index when it reflects exactly {@code state}, else null (nothing is built). */
  public PositionIndex ifAt(TableState state) {
    return index != null && version == state.version ? index : null;
  }

  /** Records that {@code state} (committed by this process with {@code index} brought up to date) is the latest. */
  public void committed(TableState state, TableLayout layout) {
    files = currentFiles(state, layout);
    version = state.version;
    newest = state.version;
    record(state);
  }

  /**
   * Records that the index holds {@code reflected} (this process's commit applied to the version it read) while the
   * table has moved past it to {@code committedVersion}: the next {@link #at} catches up with the other writers' files.
   */
  public void committedBehind(TableState reflected, TableLayout layout, long committedVersion) {
    files = currentFiles(reflected, layout);
    version = -1;
    newest = committedVersion;
    record(reflected);
  }

  /** Heap bytes of the index (0 before it is built) and of what it knows of the closed files. */
  public synchronized long bytes() {
    return (index == null ? 0 : index.bytes()) + closedFilters.bytes();
  }

  /** Heap bytes of the closed files' row positions and identity filters alone. */
  public synchronized long closedFileBytes() {
    return closedFilters.bytes();
  }

  /** Forgets the index (a commit failed halfway through updating it). */
  public void invalidate() {
    index = null;
    version = -1;
    newest = -1;
    if (persisted != null) {
      persisted.forget();
    }
  }

  /** Closes the index kept on disk (it stays there for the next start); later commits build one on the heap. */
  @Override
  public synchronized void close() {
    if (persisted != null) {
      if (index == persisted) {
        index = null;
        version = -1;
        newest = -1;
      }
      persisted.close();
      persisted = null;
    }
    persistDir = null;
    release();
  }

  private void release() {
    if (claim != null) {
      CLAIMED.remove(claim);
      claim = null;
    }
  }

  private PositionIndex build(TableState state, TableLayout layout) {
    List<AddFile> current = state.adds.values().stream().filter(layout::isCurrentFile).toList();
    long rows = 0;
    for (AddFile a : current) {
      rows += Math.max(0, approxRows(a));
    }
    PositionIndex out;
    if (persisted != null) {
      persisted = persisted.wiped();
      persisted.beginBulk();
      out = persisted;
    } else {
      out = new HeapPositionIndex((int) Math.min(Integer.MAX_VALUE / 2, Math.max(1024, rows)));
    }
    for (AddFile a : current) {
      int id = out.fileId(a.path());
      try (DataFiles.RowIterator it = DataFiles.readIdentities(root, a, layout, state.version)) {
        while (it.hasNext()) {
          Version v = it.next();
          out.put(IdentityBytes.of(v.key(), v.validFrom()), PositionIndex.location(id, it.position()));
        }
      }
    }
    return out;
  }

  private static long approxRows(AddFile a) {
    String s = a.stats();
    int at = s == null ? -1 : s.indexOf("\"numRecords\":");
    if (at < 0) {
      return 0;
    }
    int end = at + 13;
    while (end < s.length() && Character.isDigit(s.charAt(end))) {
      end++;
    }
    return end == at + 13 ? 0 : Long.parseLong(s.substring(at + 13, end));
  }

  /**
   * Applies the difference between the files the index reflects and {@code now}: rows of removed files and rows a new
   * deletion vector deletes leave the index (only where it still points at them), rows of added files enter it.
   * Returns false, having changed nothing that matters, when a full rebuild is the better choice.
   */
  private boolean catchUp(Map<String, AddFile> now, TableLayout layout, long tableVersion) {
    List<AddFile> gone = new ArrayList<>();
    List<AddFile> added = new ArrayList<>();
    for (AddFile old : files.values()) {
      AddFile n = now.get(old.path());
      if (n == null || !n.fileId().equals(old.fileId())) {
        gone.add(old);
      }
    }
    for (AddFile n : now.values()) {
      if (!files.containsKey(n.path())) {
        added.add(n);
      }
    }
    if (gone.size() + added.size() > Math.max(16, now.size() / 4)) {
      return false;
    }
    try {
      for (AddFile old : gone) {
        AddFile n = now.get(old.path());
        RoaringBitmapArray deleted = n == null || n.deletionVector() == null ? null
            : DeletionVectorFiles.read(root, n.deletionVector());
        try (DataFiles.RowIterator it = DataFiles.readIdentities(root, old, layout, tableVersion)) {
          while (it.hasNext()) {
            Version v = it.next();
            long pos = it.position();
            if (n != null && (deleted == null || !deleted.contains(pos))) {
              continue;
            }
            byte[] id = IdentityBytes.of(v.key(), v.validFrom());
            long loc = index.get(id);
            if (loc >= 0 && PositionIndex.positionOf(loc) == pos && index.file(loc).equals(old.path())) {
              index.remove(id);
            }
          }
        }
      }
      for (AddFile a : added) {
        int id = index.fileId(a.path());
        try (DataFiles.RowIterator it = DataFiles.readIdentities(root, a, layout, tableVersion)) {
          while (it.hasNext()) {
            Version v = it.next();
            index.put(IdentityBytes.of(v.key(), v.validFrom()), PositionIndex.location(id, it.position()));
          }
        }
      }
    } catch (RuntimeException e) {
      // a removed file already vacuumed, for instance: the full rebuild reads only live files
      LOG.info("{}: position index catch-up failed ({}); rebuilding", root, e.toString());
      return false;
    }
    LOG.debug("{}: position index caught up at version {}: {} files left, {} added", root, tableVersion, gone.size(),
        added.size());
    return true;
  }

  private static boolean sameFiles(Map<String, AddFile> a, Map<String, AddFile> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (AddFile f : a.values()) {
      AddFile o = b.get(f.path());
      if (o == null || !o.fileId().equals(f.fileId())) {
        return false;
      }
    }
    return true;
  }

  private static Map<String, AddFile> currentFiles(TableState state, TableLayout layout) {
    Map<String, AddFile> out = new HashMap<>();
    for (AddFile a : state.adds.values()) {
      if (layout.isCurrentFile(a)) {
        out.put(a.path(), a);
      }
    }
    return out;
  }
}
