package io.dimstream.table.internal.log;

import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.Protocol;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** Loads table state: the newest checkpoint at or before the wanted version, then the commits after it. */
public final class LogReplay {
  /**
   * The reader features dimstream implements. Type widening (either name) only asks readers to read older files'
   * narrower values as the schema's type, which the data-file decoder does for every column.
   */
  static final Set<String> READER_FEATURES =
      Set.of(Protocol.DELETION_VECTORS, Protocol.TYPE_WIDENING, Protocol.TYPE_WIDENING_PREVIEW);
  /**
   * Writer features dimstream honours: deletion vectors, type widening (new files are written in the schema's types;
   * widenings are recorded in {@code delta.typeChanges}), the change data feed (change data written with every commit
   * that changes rows while {@code delta.enableChangeDataFeed} is true), and the legacy ones a 1/2 table implies when
   * upgraded.
   */
  static final Set<String> WRITER_FEATURES =
      Set.of(Protocol.DELETION_VECTORS, Protocol.TYPE_WIDENING, "appendOnly", "invariants", "changeDataFeed");

  private LogReplay() {}

  /** The state at {@code version}, or at the latest version when {@code version} is null. */
  public static TableState load(DeltaLog log, Long version) {
    DeltaLog.Listing listing = log.listing();
    TreeSet<Long> commits = listing.commitVersions();
    TreeSet<Long> checkpoints = listing.checkpointVersions();
    if (commits.isEmpty()) {
      throw TableErrors.notATable(log.store);
    }
    long latest = commits.last();
    long earliest = checkpoints.isEmpty() ? commits.first() : Math.min(commits.first(), checkpoints.first());
    long target = version == null ? latest : version;
    if (target > latest || target < earliest || (checkpoints.floor(target) == null && commits.first() != 0)) {
      throw TableErrors.versionNotFound(log.store, target, earliest, latest);
    }
    Long cp = checkpoints.floor(target);
    TableState.Builder b = cp == null ? new TableState.Builder() : Checkpoints.read(log, listing.checkpointParts(cp));
    long from = cp == null ? 0 : cp + 1;
    for (long v = from; v <= target; v++) {
      b.apply(log.readCommit(v));
    }
    TableState s = b.build(target, listing.commitTimestamp(target));
    if (s.metadata == null || s.protocol == null) {
      throw TableErrors.corruptCommit(log.commitFile(from), 1,
          new IllegalArgumentException("the log has no protocol or metaData action up to version " + target));
    }
    checkReadable(log, s);
    return s;
  }

  /**
   * Throws unless dimstream can read every row of the table correctly: reader version 1, or reader version 3 with
   * only the reader features it implements (deletion vectors, type widening). Writer features do not change what a reader sees.
   */
  static void checkReadable(DeltaLog log, TableState s) {
    Protocol p = s.protocol;
    if (p.minReaderVersion() == 1) {
      return;
    }
    if (p.minReaderVersion() != 3) {
      throw TableErrors.unsupportedProtocol(log.store, p.minReaderVersion(), p.minWriterVersion());
    }
    List<String> unsupported = p.readerFeatureList().stream().filter(f -> !READER_FEATURES.contains(f)).toList();
    if (!unsupported.isEmpty()) {
      throw TableErrors.unsupportedReaderFeatures(log.store, unsupported, READER_FEATURES);
    }
  }

  /**
   * Throws unless dimstream may write the table: writer version at most 2 (no table features), or writer 7 with only
   * the features dimstream honours.
   */
  public static void checkWritable(Object root, TableState s) {
    checkWritable(root, s.protocol);
  }

  /** As {@link #checkWritable(Object, TableState)}, for a protocol about to be committed. */
  public static void checkWritable(Object root, Protocol p) {
    if (!canWrite(p)) {
      throw TableErrors.unwritableProtocol(root, p, WRITER_FEATURES);
    }
  }

  /** Whether dimstream may write under {@code p}: see {@link #checkWritable(Path, TableState)}. */
  public static boolean canWrite(Protocol p) {
    return p.minWriterVersion() <= 2
        || (p.minWriterVersion() == 7 && WRITER_FEATURES.containsAll(p.writerFeatureList()));
  }

  /** Whether dimstream reads every row of a table under {@code p} right: see {@link #checkReadable}. */
  public static boolean canRead(Protocol p) {
    return p.minReaderVersion() == 1
        || (p.minReaderVersion() == 3 && READER_FEATURES.containsAll(p.readerFeatureList()));
  }

  /** {@code state} moved forward over every commit written after it; the same object when there is none. */
  public static TableState advance(DeltaLog log, TableState state) {
    if (!log.commitExists(state.version + 1)) {
      return state;
    }
    TableState.Builder b = state.toBuilder();
    long v = state.version;
    while (log.commitExists(v + 1)) {
      v++;
      b.apply(log.readCommit(v));
    }
    TableState s = b.build(v, log.commitTimestamp(v));
    checkReadable(log, s);
    return s;
  }
}
