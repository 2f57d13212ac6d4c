package io.dimstream.table.internal.log;

import io.dimstream.table.CommitSummary;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.CommitInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The latest known state of one table's log, kept current, and the lookups of time travel and history. */
public final class SnapshotManager {
  private final DeltaLog log;
  private volatile TableState latest;

  public SnapshotManager(DeltaLog log, TableState initial) {
    this.log = log;
    this.latest = initial;
  }

  public DeltaLog log() {
    return log;
  }

  /** The latest state after reading any commit other writers added since the last call. */
  public synchronized TableState refresh() {
    TableState s = LogReplay.advance(log, latest);
    latest = s;
    return s;
  }

  /**
   * The latest state this process knows, without asking the store: what the last {@link #refresh} read or a commit
   * of this process made. Another writer may have committed since.
   */
  public TableState known() {
    return latest;
  }

  /** Records a state this process committed, unless a newer one is already known. */
  public synchronized void publish(TableState state) {
    if (latest.version < state.version) {
      latest = state;
    }
  }

  /** The state at {@code version}; throws when it does not exist (the message gives the available range). */
  public TableState at(long version) {
    TableState s = refresh();
    return version == s.version ? s : LogReplay.load(log, version);
  }

  /**
   * The latest version committed at or before {@code time} (commit time = the commit file's modification time).
   *
   * @throws io.dimstream.table.TableException when {@code time} is before the first commit
   */
  public long versionAsOf(Instant time) {
    refresh();
    List<Long> versions = new ArrayList<>(log.commitVersions());
    long t = time.toEpochMilli();
    int lo = 0;
    int hi = versions.size() - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (log.commitTimestamp(versions.get(mid)) <= t) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0) {
      throw TableErrors.timestampBeforeFirstCommit(log.store, time,
          Instant.ofEpochMilli(log.commitTimestamp(versions.get(0))));
    }
    return versions.get(found);
  }

  /** One summary per commit file, newest first, from its commitInfo (empty operation when it has none). */
  public List<CommitSummary> history() {
    List<CommitSummary> out = new ArrayList<>();
    for (long v : log.commitVersions().descendingSet()) {
      CommitInfo ci = null;
      for (Action a : log.readCommit(v)) {
        if (a instanceof CommitInfo c) {
          ci = c;
          break;
        }
      }
      Instant ts = Instant.ofEpochMilli(log.commitTimestamp(v));
      out.add(ci == null ? new CommitSummary(v, ts, "", Map.of(), Map.of())
          : new CommitSummary(v, ts, ci.operation(), ci.parametersAsText(), ci.operationMetrics()));
    }
    return out;
  }
}
