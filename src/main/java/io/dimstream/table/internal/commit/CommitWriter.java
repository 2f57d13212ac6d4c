package io.dimstream.table.internal.commit;

import io.dimstream.storage.ObjectStore;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.log.DeltaLog;
import io.dimstream.table.internal.log.LogReplay;
import io.dimstream.table.internal.log.SnapshotManager;
import io.dimstream.table.internal.log.TableState;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes one commit file with put-if-absent and publishes the state it makes; one attempt, no retry. */
public final class CommitWriter {
  private static final Logger LOG = LoggerFactory.getLogger(CommitWriter.class);

  private final DeltaLog log;
  private final SnapshotManager snapshots;
  private final Clock clock;
  private final Consumer<TableState> afterCommit;

  /** {@code afterCommit} runs on each state this writer commits (checkpointing when due). */
  public CommitWriter(SnapshotManager snapshots, Clock clock, Consumer<TableState> afterCommit) {
    this.log = snapshots.log();
    this.snapshots = snapshots;
    this.clock = clock;
    this.afterCommit = afterCommit;
  }

  public ObjectStore root() {
    return log.store;
  }

  /** A commit time after the base version's, so commit times (file modification times) never go backwards. */
  public long timestampAfter(TableState base) {
    return Math.max(clock.millis(), base.timestampMillis + 1);
  }

  /**
   * Writes commit {@code version} with put-if-absent; on a lost race deletes the data files this attempt wrote and
   * throws {@link CommitConflictException}. Afterwards publishes the new state and runs the after-commit hook.
   *
   * @throws io.dimstream.table.CommitStateUnknownException when the outcome is unknown; nothing is deleted then
   */
  public TableState write(long version, List<Action> actions, long now, List<AddFile> written, TableState base) {
    try {
      LogReplay.checkWritable(log.store, base);
    } catch (RuntimeException e) {
      deleteWritten(written);
      throw e;
    }
    List<String> lines = new ArrayList<>(actions.size());
    actions.forEach(a -> lines.add(ActionCodec.toJson(a)));
    if (!log.putIfAbsent(version, lines, now)) {
      deleteWritten(written);
      throw TableErrors.versionTaken(log.commitFile(version), version);
    }
    TableState.Builder b = base.toBuilder();
    b.apply(actions);
    TableState s = b.build(version, now);
    snapshots.publish(s);
    LOG.debug("{}: committed version {} ({} actions)", log.store, version, actions.size());
    afterCommit.accept(s);
    return s;
  }

  /**
   * Writes the commit {@code actionsAt(now)} on top of {@code base}; when another writer took the version first and
   * {@code rule} finds its commits compatible, writes the same data files again on top of the newest version (with a
   * new commit time), up to {@code maxRebases} times. An incompatible winner, or too many, deletes the data files and
   * throws {@link io.dimstream.table.CommitConflictException}, so the caller re-plans on the new snapshot.
   */
  public TableState writeRebasing(TableState base, LongFunction<List<Action>> actionsAt, List<AddFile> written,
      ConcurrentCommits rule, int maxRebases) {
    TableState on = base;
    for (int rebase = 0; ; rebase++) {
      long now = timestampAfter(on);
      List<Action> actions = actionsAt.apply(now);
      try {
        LogReplay.checkWritable(log.store, on);
      } catch (RuntimeException e) {
        deleteWritten(written);
        throw e;
      }
      long version = on.version + 1;
      List<String> lines = new ArrayList<>(actions.size());
      actions.forEach(a -> lines.add(ActionCodec.toJson(a)));
      if (log.putIfAbsent(version, lines, now)) {
        TableState.Builder b = on.toBuilder();
        b.apply(actions);
        TableState s = b.build(version, now);
        snapshots.publish(s);
        LOG.debug("{}: committed version {} read at {} ({} actions)", log.store, version, base.version,
            actions.size());
        afterCommit.accept(s);
        return s;
      }
      TableState latest = snapshots.refresh();
      Optional<String> conflict = rebase >= maxRebases ? Optional.of("too many concurrent commits")
          : rule.conflict(log, on.version, latest.version);
      if (conflict.isPresent()) {
        LOG.info("{}: version {} was taken and the commit read at version {} conflicts ({}): re-planning", log.store,
            version, base.version, conflict.get());
        deleteWritten(written);
        throw TableErrors.versionTaken(log.commitFile(version), version);
      }
      LOG.debug("{}: version {} was taken by a compatible commit; writing on version {}", log.store, version,
          latest.version);
      on = latest;
    }
  }

  /** Deletes data files no commit references (written by an attempt that did not commit). */
  public void deleteWritten(List<AddFile> written) {
    for (AddFile a : written) {
      DeltaLog.deleteQuietly(log.store, DataFiles.key(log.store, a.path()));
    }
  }
}
