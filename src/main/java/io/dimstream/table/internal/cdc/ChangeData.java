package io.dimstream.table.internal.cdc;

import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The change rows of one commit, by version identity (key, valid_from): the row the table held before the commit
 * against the row it holds after. An identity with a row on both sides is an update (the row before as
 * {@code update_preimage}, the row after as {@code update_postimage}) unless the two rows are equal, an identity with
 * a row after only an {@code insert}, with a row before only a {@code delete}.
 */
public final class ChangeData {
  private ChangeData() {}

  /**
   * The change rows of a commit that applies {@code changes} (the last change per identity, normalised) to a table
   * whose rows of those identities were {@code before} (an identity absent from it had no row), in the order of
   * {@code changes}.
   */
  public static List<ChangeRow> of(Map<VersionId, Version> before, Map<VersionId, VersionChange> changes) {
    List<ChangeRow> out = new ArrayList<>();
    for (Map.Entry<VersionId, VersionChange> e : changes.entrySet()) {
      Version old = before.get(e.getKey());
      Version now = e.getValue() instanceof VersionChange.Upsert u ? u.version() : null;
      if (old == null && now != null) {
        out.add(new ChangeRow(now, ChangeType.INSERT));
      } else if (old != null && now == null) {
        out.add(new ChangeRow(old, ChangeType.DELETE));
      } else if (old != null && !old.equals(now)) {
        out.add(new ChangeRow(old, ChangeType.UPDATE_PREIMAGE));
        out.add(new ChangeRow(now, ChangeType.UPDATE_POSTIMAGE));
      }
    }
    return out;
  }

  /** Whether every row of {@code rows} is an insert (readers take such a commit's adds as its inserts). */
  public static boolean insertsOnly(List<ChangeRow> rows) {
    return rows.stream().allMatch(r -> r.type() == ChangeType.INSERT);
  }
}
