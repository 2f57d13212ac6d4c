package io.dimstream.table.internal;

import io.dimstream.table.CommitConflictException;
import io.dimstream.table.CommitStateUnknownException;
import io.dimstream.table.TableException;
import io.dimstream.table.TxnOverlapException;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** Builds every user-facing table error: what happened, why, and how to fix it, naming the file involved. */
public final class TableErrors {
  private TableErrors() {}

  public static TableException notATable(Object root) {
    return new TableException(root + ": not a Delta table: there is no commit file in " + root + "/_delta_log"
        + ". Fix: check the path, or create the table first (DeltaTable.create / openOrCreate).");
  }

  public static TableException alreadyExists(Object root) {
    return new TableException(root + ": cannot create the table: " + root + "/_delta_log"
        + " already holds commits. Fix: open it with DeltaTable.open, or choose an empty directory.");
  }

  public static TableException versionNotFound(Object root, long version, long earliest, long latest) {
    return new TableException(root + ": cannot load table version " + version + " as it does not exist. "
        + "The available versions are " + earliest + ".." + latest + ". Fix: ask for a version in that range.");
  }

  public static TableException timestampBeforeFirstCommit(Object root, Instant asked, Instant first) {
    return new TableException(root + ": no table version existed at " + asked + "; the first commit is from "
        + first + ". Fix: ask for a time at or after " + first + ".");
  }

  public static TableException corruptCommit(Object file, int line, Throwable cause) {
    return new TableException(file + ": line " + line + " of the commit file is not a valid Delta action ("
        + cause.getMessage() + "). The file is corrupt or was truncated, so the table cannot be read past it. "
        + "Fix: restore the file from a backup; never edit commit files by hand.", cause);
  }

  public static TableException truncatedCommit(Object file, long expected, long found) {
    return new TableException(file + ": the commit file holds " + found + " actions but its commitInfo declares "
        + expected + "; the file was truncated. Fix: restore the file from a backup.");
  }

  public static TableException missingCommit(Object file) {
    return new TableException(file + ": this commit file is missing, so the log has a gap and later versions "
        + "cannot be read. Fix: restore the file, or read an older version.");
  }

  public static TableException unreadableCheckpoint(Object file, Throwable cause) {
    return new TableException(file + ": cannot read the checkpoint (" + cause.getMessage() + "). "
        + "Fix: delete this checkpoint file and _last_checkpoint; the table is then replayed from its commits.", cause);
  }

  public static TableException missingDataFile(Object file, long version) {
    return new TableException(file + ": this data file is referenced by table version " + version
        + " but does not exist (deleted by hand or by a vacuum with too short a retention). "
        + "Fix: restore the file, or read a newer version that no longer references it.");
  }

  public static TableException fileOutsideTable(Object root, String path) {
    return new TableException(root + ": the log names the file " + path + ", outside the table; dimstream reads an "
        + "object store table's files only under its own location. Fix: rewrite the table (backfill from its rows) "
        + "so that its files are under " + root + ".");
  }

  public static TableException unreadableDataFile(Object file, Throwable cause) {
    return new TableException(file + ": cannot read this Parquet data file (" + cause.getMessage() + "). "
        + "Fix: restore the file from a backup.", cause);
  }

  public static TableException deletionVectorPastEnd(Object file, long rows, long position) {
    return new TableException(file + ": the table's deletion vector for this data file deletes row " + position
        + " but the file has only " + rows + " rows, so the deletion vector does not belong to this file and the "
        + "rows it should hide cannot be known. Fix: restore the data file and its deletion vector from a backup, "
        + "or read a table version before the commit that added the deletion vector.");
  }

  public static TableException unsupportedProtocol(Object root, int reader, int writer) {
    return new TableException(root + ": the table needs Delta reader version " + reader + " / writer version "
        + writer + ", but dimstream reads reader versions 1 and 3 (with the deletionVectors feature) only. "
        + "Fix: read this table with an engine that supports its protocol (e.g. Spark with Delta Lake).");
  }

  public static TableException unwritableProtocol(Object root, Protocol p, Collection<String> supported) {
    String features = p.writerFeatures() == null ? "" : " with writer features " + new TreeSet<>(p.writerFeatures());
    return new TableException(root + ": the table is at Delta reader version " + p.minReaderVersion()
        + " / writer version " + p.minWriterVersion() + features + "; dimstream reads it but writes (commits, "
        + "optimize, vacuum) only tables at writer version 2 or lower, or at writer version 7 with only the writer "
        + "features " + new TreeSet<>(supported) + ", so nothing was changed. Fix: run this maintenance with an "
        + "engine that supports the table's protocol (e.g. Spark with Delta Lake), or write the dimension to a new "
        + "table.");
  }

  public static TableException unsupportedReaderFeatures(Object root, Collection<String> unsupported,
      Collection<String> supported) {
    return new TableException(root + ": the table uses the Delta reader feature(s) " + new TreeSet<>(unsupported)
        + ", which dimstream does not implement (it reads " + new TreeSet<>(supported) + "); reading it anyway "
        + "could return wrong rows. Fix: read the table with an engine that supports these features (e.g. Spark "
        + "with Delta Lake), or write the dimension to a table without them.");
  }

  public static TableException protocolTooNew(Object root, Protocol p) {
    return new TableException(root + ": cannot upgrade the table to deletion vectors: it already uses Delta reader "
        + "version " + p.minReaderVersion() + " / writer version " + p.minWriterVersion() + " with features "
        + p.readerFeatures() + " / " + p.writerFeatures() + ", which a newer protocol governs and an upgrade "
        + "must never lower. Fix: nothing to do if the features include 'deletionVectors'; otherwise the table "
        + "was upgraded by another engine with features dimstream does not support, and must stay with it.");
  }

  public static TableException notADimensionTable(Object root) {
    return new TableException(root + ": the Delta table has no 'dimstream.spec' in its metaData.configuration, so "
        + "it was not created by dimstream and its rows cannot be mapped to versions. Fix: point at a dimstream table.");
  }

  public static TableException badStoredSpec(Object root, Throwable cause) {
    return new TableException(root + ": the 'dimstream.spec' table property cannot be parsed (" + cause.getMessage()
        + "). Fix: restore it (ALTER TABLE ... SET TBLPROPERTIES in Spark rewrites it verbatim).", cause);
  }

  public static CommitConflictException commitConflict(Object commitFile, long version, int attempts) {
    return new CommitConflictException(commitFile + ": another writer committed table version " + version
        + " first, and " + attempts + " attempt(s) re-planned on the newer snapshot all lost the race. "
        + "Nothing of this commit is in the table. Fix: retry later, or run a single writer per table.", version);
  }

  /** One attempt lost its race; retried by the caller, so the message is for logs only. */
  public static CommitConflictException versionTaken(Object commitFile, long version) {
    return new CommitConflictException(commitFile + ": version " + version + " already exists", version);
  }

  public static TableException interruptedRetry(Object root, InterruptedException cause) {
    return new TableException(root + ": interrupted while waiting to retry a commit", cause);
  }

  public static TxnOverlapException txnOverlap(Object root, long version, Map<String, Long> batch, Map<String, Long> recorded) {
    return new TxnOverlapException(root + ": table version " + version + " already records txn versions " + recorded
        + " at or past this batch's " + batch + ", but not all of the batch: another writer applied part of the same "
        + "source. Nothing was written. Fix: re-read the source from the offsets the table records (the compactor does "
        + "this by itself), and run one writer per table.", recorded);
  }

  public static TxnOverlapException txnFenced(Object root, long version, Map<String, Long> readFrom,
      Map<String, Long> recorded) {
    return new TxnOverlapException(root + ": table version " + version + " already records txn versions " + recorded
        + " at or past where this commit's changes were read from " + readFrom + ": another writer has applied "
        + "them meanwhile (this writer's source position is stale, as after a pause during which its partitions "
        + "moved). Nothing was written. Fix: re-read the source from the offsets the table records (the compactor "
        + "does this by itself).", recorded);
  }

  public static CommitStateUnknownException commitStateUnknown(Object commitFile, IOException cause) {
    return new CommitStateUnknownException(commitFile + ": writing the commit failed (" + cause.getMessage()
        + ") and it is unknown whether it was committed. The writer stopped and deleted nothing. "
        + "Fix: reopen the table to see its latest version, then resume from the txn versions it records.", cause);
  }

  public static TableException io(String action, Object file, IOException cause) {
    return new TableException(file + ": cannot " + action + " (" + cause + "). Fix: check that the location exists "
        + "and is writable: a local directory's permissions and free disk space; an object store's bucket, the "
        + "credentials' permissions and the network.", cause);
  }

  public static TableException unencodableCommit(Object commit, java.nio.charset.CharacterCodingException cause) {
    return new TableException(commit + ": cannot write the commit: a value in it (a string column's value or its "
        + "min/max statistics) is not valid Unicode text (" + cause + "), typically a lone UTF-16 surrogate such as "
        + "the JSON escape \\ud800 without its partner. Nothing was committed. Fix: correct the value at its source; "
        + "the service sends such version records to the dead-letter topic instead of committing them.", cause);
  }

  public static TableException typeChanged(Object root, Path specFile, String column, ColumnType stored,
      ColumnType asked) {
    return new TableException(spec(specFile) + "field 'columns." + column + "': the column is " + asked
        + " in the spec but " + stored + " in the table " + root + "; changing or narrowing a column type would make"
        + " the versions already written unreadable as the new type (a table follows only widenings: int to long,"
        + " a decimal's precision up with the same scale). Fix: keep '" + column + ": " + stored
        + "' in the spec, or add a new column with the new type.");
  }

  public static TableException identityTypeChanged(Object root, Path specFile, String column, ColumnType stored,
      ColumnType asked) {
    return new TableException(spec(specFile) + "field 'columns." + column + "': the column is " + asked
        + " in the spec but " + stored + " in the table " + root + "; it is a key or sequence column, and widening it"
        + " would change how versions already written are keyed and ordered (Kafka partitions, version identities),"
        + " so only attribute columns may be widened. Fix: keep '" + column + ": " + stored + "' in the spec, or write"
        + " the dimension to a new table (service.table_path) and rebuild it with backfill.");
  }

  public static TableException schemaDisagreesWithSpec(Object root, String column, String schemaType,
      ColumnType specType) {
    return new TableException(root + ": column '" + column + "' is " + schemaType + " in the table's Delta schema but "
        + specType + " in its 'dimstream.spec'; another engine changed the column's type without the spec, and reading"
        + " the rows as " + specType + " could return wrong values, so the table is not read. Fix: give '" + column
        + "' the type " + schemaType + " in the 'dimstream.spec' table property too (Spark: ALTER TABLE ... SET"
        + " TBLPROPERTIES), and in the spec file dimstream runs with.");
  }

  /**
   * What a command that only reads a table prints when its protocol misses features in force: what Spark does with
   * it and the command that repairs it.
   */
  public static String incompleteProtocol(Object root, List<String> missing) {
    return root + ": the table's Delta protocol does not list the table feature(s) " + missing + " that its "
        + "metadata puts in force (written by an earlier dimstream release); Delta Spark refuses to read it "
        + "(DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH). Fix: run 'dimstream table upgrade --table " + root
        + "' (or any dimstream command that writes the table): it adds them in one commit and changes nothing else.";
  }

  public static TableException cannotWiden(Object root, Path specFile, String column, Protocol p) {
    return new TableException(spec(specFile) + "field 'columns." + column + "': widening the column needs the Delta"
        + " table feature 'typeWidening' (reader version 3 / writer version 7), but the table " + root + " is at"
        + " reader version " + p.minReaderVersion() + " / writer version " + p.minWriterVersion() + ", which"
        + " dimstream cannot extend without lowering it, so nothing was changed. Fix: keep the column's former type"
        + " in the spec, or enable type widening with the engine that set this protocol (e.g. Spark: ALTER TABLE ..."
        + " SET TBLPROPERTIES ('delta.enableTypeWidening' = 'true')) and start again.");
  }

  public static TableException structureChanged(Object root, Path specFile, String field, Object stored, Object asked) {
    return new TableException(spec(specFile) + "field '" + field + "': the spec says " + asked + " but the table "
        + root + " has " + stored + "; the versions already written were built with the former, so changing it would"
        + " rewrite history. Fix: restore '" + field + "' in the spec, or write the dimension to a new table"
        + " (service.table_path) and rebuild it with backfill or by replaying the changes topic.");
  }

  public static TableException droppedColumn(Object root, Path specFile, String column) {
    return new TableException(spec(specFile) + "field 'columns': column '" + column + "' is in the table " + root
        + " but not in the spec (or is now the delete rule's column); dropping a column would rewrite history. Fix:"
        + " keep '" + column + "' under 'columns' (it may stay null in new versions).");
  }

  public static TableException reorderedAttributes(Object root, Path specFile, List<String> stored,
      List<String> asked) {
    return new TableException(spec(specFile) + "field 'columns': the spec lists the attribute columns in the order "
        + asked + " but the table " + root + " has " + stored + "; a running service keeps each stored event's values"
        + " in the table's order, and a reorder alone cannot be told apart from it, so the stored events would be"
        + " read into the wrong columns. Fix: keep the columns in the table's order (new columns may go anywhere).");
  }

  public static TableException badStateLayouts(Object root, String problem) {
    return new TableException(root + ": " + problem);
  }

  private static String spec(Path specFile) {
    return specFile == null ? "" : specFile + ": ";
  }

  public static TableException badChange(Object root, String problem) {
    return new TableException((root == null ? "" : root + ": ") + "cannot commit the change: " + problem
        + ". Fix: build changes from the table's spec (DeltaTable.spec()).");
  }

  public static TableException bulkLoadIntoNonEmptyTable(Object root, long version, int files) {
    return new TableException(root + ": cannot bulk-load into version " + version + ": the table already holds "
        + files + " data file(s), and a bulk load writes whole buckets that would hide their rows. Fix: load into "
        + "a new, empty table, or apply the changes with DeltaTable.commit.");
  }

  public static TableException badProperty(String property, String value, String expected) {
    return new TableException("table property '" + property + "' = '" + value + "' is invalid: expected "
        + expected + ". Fix: correct the property.");
  }

  public static TableException badRetention(Object root, Duration retention, Duration tombstoneRetention) {
    return new TableException(root + ": vacuum retention " + retention + " is negative or longer than "
        + "delta.deletedFileRetentionDuration (" + tombstoneRetention + "), the window for which the log remembers "
        + "removed files; a longer retention could delete files an old snapshot still needs. Fix: use a "
        + "retention between 0 and " + tombstoneRetention + ", or raise delta.deletedFileRetentionDuration.");
  }
}
