package io.dimstream.table.internal.index;

import io.dimstream.model.Version;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.log.TableState;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The position index of one table, kept in step with the versions this process commits and rebuilt from the table
 * (key and valid_from columns of the current files, minus their deletion vectors) when another writer changed the
 * current files. Callers hold its monitor for the length of a commit.
 */
public final class CurrentRowIndex {
  private static final Logger LOG = LoggerFactory.getLogger(CurrentRowIndex.class);

  private final Path root;
  private PositionIndex index;
  private long version = -1;
  /** The current files the index reflects: path to the id of its deletion vector ("" when none). */
  private Map<String, String> files = Map.of();

  public CurrentRowIndex(Path root) {
    this.root = root;
  }

  /** The index for {@code state}, rebuilt when the current files differ from those it reflects. */
  public PositionIndex at(TableState state, TableLayout layout) {
    if (index != null && version == state.version) {
      return index;
    }
    Map<String, String> now = currentFiles(state, layout);
    if (index == null || !now.equals(files)) {
      long start = System.nanoTime();
      index = build(state, layout);
      LOG.info("{}: rebuilt the position index at version {}: {} rows of {} current files in {} ms ({} bytes)",
          root, state.version, index.size(), now.size(), (System.nanoTime() - start) / 1_000_000, index.bytes());
    }
    files = now;
    version = state.version;
    return index;
  }

  /** The index when it reflects exactly {@code state}, else null (nothing is built). */
  public PositionIndex ifAt(TableState state) {
    return index != null && version == state.version ? index : null;
  }

  /** Records that {@code state} (committed by this process with {@code index} brought up to date) is the latest. */
  public void committed(TableState state, TableLayout layout) {
    files = currentFiles(state, layout);
    version = state.version;
  }

  /** Heap bytes of the index (0 before it is built). */
  public synchronized long bytes() {
    return index == null ? 0 : index.bytes();
  }

  /** Forgets the index (a commit failed halfway through updating it). */
  public void invalidate() {
    index = null;
    version = -1;
  }

  private PositionIndex build(TableState state, TableLayout layout) {
    List<AddFile> current = state.adds.values().stream().filter(layout::isCurrentFile).toList();
    long rows = 0;
    for (AddFile a : current) {
      rows += Math.max(0, approxRows(a));
    }
    PositionIndex out = new PositionIndex((int) Math.min(Integer.MAX_VALUE / 2, Math.max(1024, rows)));
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

  private static Map<String, String> currentFiles(TableState state, TableLayout layout) {
    Map<String, String> out = new HashMap<>();
    for (AddFile a : state.adds.values()) {
      if (layout.isCurrentFile(a)) {
        out.put(a.path(), a.deletionVector() == null ? "" : Objects.toString(a.deletionVector().uniqueId()));
      }
    }
    return out;
  }
}
