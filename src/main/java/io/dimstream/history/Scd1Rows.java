package io.dimstream.history;

import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of a {@code history: scd1} table without {@code soft_delete}: only the open version of each key, so a
 * change that leaves a version closed becomes its retraction. Each identity's last change still says its final
 * state, which keeps the versions topic and the table exact.
 */
final class Scd1Rows {
  private Scd1Rows() {}

  /** The changes as the table must see them under {@code mode}; unchanged unless deletes remove rows. */
  static List<VersionChange> changes(HistoryMode mode, List<VersionChange> changes) {
    if (!mode.hardDelete()) {
      return changes;
    }
    List<VersionChange> out = new ArrayList<>(changes.size());
    for (VersionChange c : changes) {
      if (c instanceof VersionChange.Upsert u && !u.version().isCurrent()) {
        out.add(new VersionChange.Retraction(u.key(), u.validFrom()));
      } else {
        out.add(c);
      }
    }
    return out;
  }

  /** The versions as the table holds them under {@code mode}. */
  static List<Version> versions(HistoryMode mode, List<Version> versions) {
    return mode.hardDelete() ? versions.stream().filter(Version::isCurrent).toList() : versions;
  }
}
