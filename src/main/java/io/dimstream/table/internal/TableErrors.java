package io.dimstream.table.internal;

import io.dimstream.config.ColumnType;
import io.dimstream.table.CommitConflictException;
import io.dimstream.table.CommitStateUnknownException;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.TableException;
import io.dimstream.table.TxnOverlapException;
import io.dimstream.table.internal.actions.Protocol;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** Builds every user-facing table error: what happened, why, and how to fix it, naming the file involved. */
public final class TableErrors {
  private TableErrors() {}

  public static TableException notATable(Path root) {
    return new TableException(root + ": not a Delta table: there is no commit file in " + root.resolve("_delta_log")
        + ". Fix: check the path, or create the table first (DeltaTable.create / openOrCreate).");
  }

  public static TableException alreadyExists(Path root) {
    return new TableException(root + ": cannot create the table: " + root.resolve("_delta_log")
        + " already holds commits. Fix: open it with DeltaTable.open, or choose an empty directory.");
  }

  public static TableException versionNotFound(Path root, long version, long earliest, long latest) {
    return new TableException(root + ": cannot load table version " + version + " as it does not exist. "
        + "The available versions are " + earliest + ".." + latest + ". Fix: ask for a version in that range.");
  }

  public static TableException timestampBeforeFirstCommit(Path root, Instant asked, Instant first) {
    return new TableException(root + ": no table version existed at " + asked + "; the first commit is from "
        + first + ". Fix: ask for a time at or after " + first + ".");
  }

  public static TableException corruptCommit(Path file, int line, Throwable cause) {
    return new TableException(file + ": line " + line + " of the commit file is not a valid Delta action ("
        + cause.getMessage() + "). The file is corrupt or was truncated, so the table cannot be read past it. "
        + "Fix: restore the file from a backup; never edit commit files by hand.", cause);
  }

  public static TableException truncatedCommit(Path file, long expected, long found) {
    return new TableException(file + ": the commit file holds " + found + " actions but its commitInfo declares "
        + expected + "; the file was truncated. Fix: restore the file from a backup.");
  }

  public static TableException missingCommit(Path file) {
    return new TableException(file + ": this commit file is missing, so the log has a gap and later versions "
        + "cannot be read. Fix: restore the file, or read an older version.");
  }

  public static TableException unreadableCheckpoint(Path file, Throwable cause) {
    return new TableException(file + ": cannot read the checkpoint (" + cause.getMessage() + "). "
        + "Fix: delete this checkpoint file and _last_checkpoint; the table is then replayed from its commits.", cause);
  }

  public static TableException missingDataFile(Path file, long version) {
    return new TableException(file + ": this data file is referenced by table version " + version
        + " but does not exist (deleted by hand or by a vacuum with too short a retention). "
        + "Fix: restore the file, or read a newer version that no longer references it.");
  }

  public static TableException unreadableDataFile(Path file, Throwable cause) {
    return new TableException(file + ": cannot read this Parquet data file (" + cause.getMessage() + "). "
        + "Fix: restore the file from a backup.", cause);
  }

  public static TableException unsupportedProtocol(Path root, Protocol p) {
    String features = p.readerFeatures() == null && p.writerFeatures() == null ? ""
        : " with reader features " + p.readerFeatures() + " and writer features " + p.writerFeatures();
    return new TableException(root + ": the table needs Delta reader version " + p.minReaderVersion()
        + " / writer version " + p.minWriterVersion() + features + ", but dimstream reads version 1, or version 3 "
        + "with only 'deletionVectors', and writes version 2, or version 7 with only 'deletionVectors' "
        + "(plus 'appendOnly' and 'invariants'). Fix: use a table written by dimstream, or one whose protocol was "
        + "not upgraded with other table features (e.g. column mapping or row tracking).");
  }

  public static TableException protocolTooNew(Path root, Protocol p) {
    return new TableException(root + ": cannot upgrade the table to deletion vectors: it already uses Delta reader "
        + "version " + p.minReaderVersion() + " / writer version " + p.minWriterVersion() + " with features "
        + p.readerFeatures() + " / " + p.writerFeatures() + ", which a newer protocol governs and an upgrade "
        + "must never lower. Fix: nothing to do if the features include 'deletionVectors'; otherwise the table "
        + "was upgraded by another engine with features dimstream does not support, and must stay with it.");
  }

  public static TableException notADimensionTable(Path root) {
    return new TableException(root + ": the Delta table has no 'dimstream.spec' in its metaData.configuration, so "
        + "it was not created by dimstream and its rows cannot be mapped to versions. Fix: point at a dimstream table.");
  }

  public static TableException badStoredSpec(Path root, Throwable cause) {
    return new TableException(root + ": the 'dimstream.spec' table property cannot be parsed (" + cause.getMessage()
        + "). Fix: restore it (ALTER TABLE ... SET TBLPROPERTIES in Spark rewrites it verbatim).", cause);
  }

  public static CommitConflictException commitConflict(Path commitFile, long version, int attempts) {
    return new CommitConflictException(commitFile + ": another writer committed table version " + version
        + " first, and " + attempts + " attempt(s) re-planned on the newer snapshot all lost the race. "
        + "Nothing of this commit is in the table. Fix: retry later, or run a single writer per table.", version);
  }

  /** One attempt lost its race; retried by the caller, so the message is for logs only. */
  public static CommitConflictException versionTaken(Path commitFile, long version) {
    return new CommitConflictException(commitFile + ": version " + version + " already exists", version);
  }

  public static TableException interruptedRetry(Path root, InterruptedException cause) {
    return new TableException(root + ": interrupted while waiting to retry a commit", cause);
  }

  public static TxnOverlapException txnOverlap(Path root, long version, Map<String, Long> batch, Map<String, Long> recorded) {
    return new TxnOverlapException(root + ": table version " + version + " already records txn versions " + recorded
        + " at or past this batch's " + batch + ", but not all of the batch: another writer applied part of the same "
        + "source. Nothing was written. Fix: re-read the source from the offsets the table records (the compactor does "
        + "this by itself), and run one writer per table.", recorded);
  }

  public static CommitStateUnknownException commitStateUnknown(Path commitFile, IOException cause) {
    return new CommitStateUnknownException(commitFile + ": writing the commit failed (" + cause.getMessage()
        + ") and it is unknown whether it was committed. The writer stopped and deleted nothing. "
        + "Fix: reopen the table to see its latest version, then resume from the txn versions it records.", cause);
  }

  public static TableException io(String action, Path file, IOException cause) {
    return new TableException(file + ": cannot " + action + " (" + cause + "). Fix: check that the path exists, "
        + "is writable and the disk is not full.", cause);
  }

  public static TableException typeChanged(Path root, String column, ColumnType stored, ColumnType asked) {
    return new TableException(root + ": column '" + column + "' is " + stored + " in the table but " + asked
        + " in the spec; changing or narrowing a column type would make existing files unreadable as the new type. "
        + "Fix: keep '" + column + ": " + stored + "' in the spec, or add a new column with the new type.");
  }

  public static TableException structureChanged(Path root, String what, Object stored, Object asked) {
    return new TableException(root + ": the table's " + what + " is " + stored + " but the spec says " + asked
        + "; existing versions were written with the former. Fix: restore '" + what + "' in the spec, or write "
        + "the dimension to a new table.");
  }

  public static TableException droppedColumn(Path root, String column) {
    return new TableException(root + ": column '" + column + "' is in the table but not in the spec; dropping "
        + "columns is not supported. Fix: keep the column in the spec (it may stay null).");
  }

  public static TableException badChange(Path root, String problem) {
    return new TableException((root == null ? "" : root + ": ") + "cannot commit the change: " + problem
        + ". Fix: build changes from the table's spec (DeltaTable.spec()).");
  }

  public static TableException badProperty(String property, String value, String expected) {
    return new TableException("table property '" + property + "' = '" + value + "' is invalid: expected "
        + expected + ". Fix: correct the property.");
  }

  public static TableException badRetention(Path root, Duration retention, Duration tombstoneRetention) {
    return new TableException(root + ": vacuum retention " + retention + " is negative or longer than "
        + "delta.deletedFileRetentionDuration (" + tombstoneRetention + "), the window for which the log remembers "
        + "removed files; a longer retention could delete files an old snapshot still needs. Fix: use a "
        + "retention between 0 and " + tombstoneRetention + ", or raise delta.deletedFileRetentionDuration.");
  }
}
