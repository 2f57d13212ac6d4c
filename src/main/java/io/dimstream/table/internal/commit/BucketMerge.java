package io.dimstream.table.internal.commit;

import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass over a bucket's rows (in identity order, as dimstream writes them) and the bucket's sorted changes,
 * yielding the bucket's new rows in identity order. Rows out of order (a file another writer produced) are still
 * merged correctly: from the first one on, rows are matched to the changes by identity.
 */
final class BucketMerge implements Iterator<Version> {
  private static final Logger LOG = LoggerFactory.getLogger(BucketMerge.class);

  private final Iterator<Version> rows;
  private final List<Map.Entry<VersionId, VersionChange>> changes;
  private final Set<VersionId> found;
  private final String file;
  /** Where the rows the changes replace or retract go, by identity; null when nobody needs them. */
  private final Map<VersionId, Version> replaced;
  private Set<VersionId> changeIds;
  private int ci;
  private Version pendingRow;
  private VersionId lastRowId;
  private Version next;
  long copied;
  long emitted;

  BucketMerge(Iterator<Version> rows, List<Map.Entry<VersionId, VersionChange>> changes, Set<VersionId> found,
      String file, Map<VersionId, Version> replaced) {
    this.replaced = replaced;
    this.rows = rows;
    this.changes = changes;
    this.found = found;
    this.file = file;
    advance();
  }

  /** The next row of the bucket that no change replaces or retracts. */
  private Version nextRow() {
    if (pendingRow != null) {
      Version r = pendingRow;
      pendingRow = null;
      return r;
    }
    while (rows.hasNext()) {
      Version r = rows.next();
      VersionId id = VersionId.of(r);
      if (changeIds == null && lastRowId != null && IdentityOrder.ORDER.compare(lastRowId, id) >= 0) {
        LOG.warn("bucket file {} is not sorted by (key, valid_from); matching its rows to the changes by identity",
            file);
        changeIds = new HashSet<>();
        changes.forEach(e -> changeIds.add(e.getKey()));
      }
      lastRowId = id;
      if (changeIds != null && changeIds.contains(id)) {
        found.add(id);
        if (replaced != null) {
          replaced.put(id, r);
        }
        continue;
      }
      return r;
    }
    return null;
  }

  private void advance() {
    next = null;
    while (next == null) {
      Version r = nextRow();
      Map.Entry<VersionId, VersionChange> c = ci < changes.size() ? changes.get(ci) : null;
      if (r == null && c == null) {
        return;
      }
      int cmp = r == null ? 1 : c == null ? -1 : IdentityOrder.ORDER.compare(VersionId.of(r), c.getKey());
      if (cmp < 0) {
        copied++;
        next = r;
        break;
      }
      if (cmp == 0) {
        found.add(c.getKey());
        if (replaced != null) {
          replaced.put(c.getKey(), r);
        }
      } else {
        pendingRow = r;
      }
      ci++;
      if (c.getValue() instanceof VersionChange.Upsert u && u.version().isCurrent()) {
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
      throw new NoSuchElementException();
    }
    Version v = next;
    advance();
    return v;
  }
}
