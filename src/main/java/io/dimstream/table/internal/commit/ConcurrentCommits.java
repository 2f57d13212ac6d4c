package io.dimstream.table.internal.commit;

import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.actions.SetTransaction;
import io.dimstream.table.internal.files.FileOwner;
import io.dimstream.table.internal.log.DeltaLog;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Delta's rule for a commit that lost the race for a version (PROTOCOL.md and Delta's concurrency control): it may be
 * written as it is on top of the winners when they changed neither the protocol nor the metadata, removed or
 * re-marked none of the files it read (its removes and DV marks), advanced none of its txn appIds, and added no rows
 * that may hold its keys. Otherwise it must be re-planned on the new snapshot.
 *
 * @param touched   paths of the files the losing commit removes or marks rows deleted in
 * @param appIds    the txn appIds the losing commit records
 * @param rowOwners for a change commit: true for an owner partition (-1: unowned) whose newly added rows may hold
 *                  keys of the losing commit; null for a commit that adds no rows of its own (compaction)
 */
public record ConcurrentCommits(Set<String> touched, Set<String> appIds, IntPredicate rowOwners) {
  public ConcurrentCommits {
    touched = Set.copyOf(touched);
    appIds = Set.copyOf(appIds);
  }

  /** Why the commits after {@code readVersion} up to {@code latest} conflict with this one; empty when they do not. */
  public Optional<String> conflict(DeltaLog log, long readVersion, long latest) {
    for (long v = readVersion + 1; v <= latest; v++) {
      Optional<String> c = conflict(v, log.readCommit(v));
      if (c.isPresent()) {
        return c;
      }
    }
    return Optional.empty();
  }

  /** The conflict with the actions of winning version {@code version}, if any. */
  Optional<String> conflict(long version, List<Action> winner) {
    Set<String> removedByWinner = new HashSet<>();
    for (Action a : winner) {
      if (a instanceof RemoveFile r) {
        removedByWinner.add(r.path());
      }
    }
    for (Action a : winner) {
      if (a instanceof Metadata || a instanceof Protocol) {
        return Optional.of("version " + version + " changed the table's metadata or protocol");
      }
      if (a instanceof RemoveFile r && touched.contains(r.path())) {
        return Optional.of("version " + version + " removed or re-marked " + r.path());
      }
      if (a instanceof SetTransaction t && appIds.contains(t.appId())) {
        return Optional.of("version " + version + " recorded txn " + t.appId());
      }
      // an add of a path the same commit removes is a new deletion vector on an old file: no new rows
      if (a instanceof AddFile f && rowOwners != null && f.dataChange() && !removedByWinner.contains(f.path())
          && rowOwners.test(FileOwner.of(f).orElse(-1))) {
        return Optional.of("version " + version + " added rows that may hold keys of this commit (" + f.path() + ")");
      }
    }
    return Optional.empty();
  }
}
