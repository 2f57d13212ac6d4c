package io.dimstream.table.internal.log;

import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tombstones a checkpoint keeps. The protocol ("Action Reconciliation") says tombstones exist only for VACUUM: a
 * tombstone matters while it keeps a file VACUUM could delete. Each deletion-vector re-mark of a file leaves a
 * tombstone of the file with its former DV; the data file itself is still live, so such a tombstone only protects its
 * former DV's file, and one unexpired tombstone per DV file (the latest) protects that file as well as all of them.
 * Kept: every unexpired tombstone of a data file no longer live, and per DV file that no live file references, the
 * latest unexpired tombstone of a live data file that names it. Dropped: expired ones, tombstones of a live data file
 * without a DV or with an inline DV, and the rest of each DV file's group.
 */
final class CheckpointTombstones {
  private CheckpointTombstones() {}

  /** The tombstones of {@code state} to write into its checkpoint, in log-replay order. */
  static List<RemoveFile> kept(TableState state, long tombstoneCutoffMillis) {
    Set<String> livePaths = new HashSet<>();
    Set<String> liveDvFiles = new HashSet<>();
    for (AddFile a : state.adds.values()) {
      livePaths.add(a.path());
      String dvFile = dvFile(a.deletionVector());
      if (dvFile != null) {
        liveDvFiles.add(dvFile);
      }
    }
    // per DV file that only tombstones of live data files name: the one of them that expires last
    Map<String, RemoveFile> latestPerDvFile = new HashMap<>();
    for (RemoveFile r : state.removes.values()) {
      String dvFile = dvFile(r.deletionVector());
      if (r.deletionTimestamp() > tombstoneCutoffMillis && livePaths.contains(r.path()) && dvFile != null
          && !liveDvFiles.contains(dvFile)) {
        latestPerDvFile.merge(dvFile, r, (x, y) -> y.deletionTimestamp() > x.deletionTimestamp() ? y : x);
      }
    }
    List<RemoveFile> out = new ArrayList<>();
    for (RemoveFile r : state.removes.values()) {
      if (r.deletionTimestamp() <= tombstoneCutoffMillis) {
        continue;
      }
      if (!livePaths.contains(r.path())) {
        out.add(r);
      } else {
        String dvFile = dvFile(r.deletionVector());
        if (dvFile != null && latestPerDvFile.get(dvFile) == r) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /** The DV's file as the log names it (storage type and path, without the offset); null for none or inline. */
  private static String dvFile(DeletionVectorDescriptor dv) {
    return dv == null || dv.isInline() ? null : dv.storageType() + dv.pathOrInlineDv();
  }
}
