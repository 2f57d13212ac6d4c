package io.dimstream.table.internal.commit;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.table.CommitResult;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.IdentitySort;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.log.TableState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The first rows of an empty table, written bucket by bucket from several threads (each bucket's current rows in
 * the one file the planner expects of it, closed rows in files of at most targetFileRows) and committed at once.
 */
public final class BulkLoadCommit {
  private final CommitWriter writer;
  private final TableState state;
  private final TableLayout layout;
  private final int buckets;
  private final CompressionCodecName codec;
  private final CompressionCodecName currentCodec;
  private final long targetFileRows;
  private final List<AddFile> written = new ArrayList<>();
  private long rows;

  public BulkLoadCommit(CommitWriter writer, TableState state, TableLayout layout) {
    if (!state.adds.isEmpty()) {
      throw TableErrors.bulkLoadIntoNonEmptyTable(writer.root(), state.version, state.adds.size());
    }
    this.writer = writer;
    this.state = state;
    this.layout = layout;
    Map<String, String> conf = state.metadata.configuration();
    this.buckets = TableProperties.buckets(conf);
    this.codec = TableProperties.codec(conf);
    this.currentCodec = TableProperties.currentCodec(conf);
    this.targetFileRows = TableProperties.targetFileRows(conf);
  }

  public int buckets() {
    return buckets;
  }

  public int bucketOf(BusinessKey key) {
    return Buckets.of(layout.normalizeKey(key), buckets);
  }

  /** Writes every version of bucket {@code bucket}; called at most once per bucket, from any thread. */
  public void write(int bucket, List<Version> versions) {
    List<Version> current = new ArrayList<>();
    List<Version> closed = new ArrayList<>();
    for (Version v : versions) {
      BusinessKey key = layout.normalizeKey(v.key());
      Version n = key == v.key() ? v : new Version(key, v.validFrom(), v.validTo(), v.attributes());
      if (Buckets.of(key, buckets) != bucket) {
        throw TableErrors.badChange(writer.root(), "version " + key + "@" + v.validFrom() + " is not of bucket "
            + bucket);
      }
      (n.isCurrent() ? current : closed).add(n);
    }
    List<AddFile> files = new ArrayList<>();
    try {
      if (!current.isEmpty()) {
        IdentitySort.sort(current);
        files.add(DataFiles.write(writer.root(), Buckets.bucketFile(layout.current.directory(), bucket, buckets,
            currentCodec.name().toLowerCase(Locale.ROOT)), current, layout, true, currentCodec));
      }
      IdentitySort.sort(closed);
      for (int from = 0; from < closed.size(); from += (int) targetFileRows) {
        List<Version> chunk = closed.subList(from, (int) Math.min(closed.size(), from + targetFileRows));
        // named for the bucket like the current file, so a key lookup skips the other buckets' closed files
        files.add(DataFiles.write(writer.root(), Buckets.bucketFile(layout.closed.directory(), bucket, buckets,
            codec.name().toLowerCase(Locale.ROOT)), chunk, layout, false, codec));
      }
    } finally {
      synchronized (this) {
        written.addAll(files);
        rows += versions.size();
      }
    }
  }

  /** The {@code add} actions of the files written so far, as Delta log JSON lines. */
  public synchronized List<String> writtenActions() {
    return written.stream().map(ActionCodec::toJson).toList();
  }

  /**
   * Takes into this load the files another load of the same table wrote ({@link #writtenActions} there), holding
   * {@code rowCount} rows: the load whose buckets were written by several processes commits from one.
   */
  public synchronized void adopt(List<String> actions, long rowCount) {
    List<AddFile> files = new ArrayList<>(actions.size());
    for (String line : actions) {
      if (!(ActionCodec.fromJson(line) instanceof AddFile add) || add.path().contains("..")
          || add.path().startsWith("/") || add.path().contains(":")) {
        throw TableErrors.badChange(writer.root(), "not the add action of a data file of this table: " + line);
      }
      files.add(add);
    }
    written.addAll(files);
    rows += rowCount;
  }

  /** Commits every file written so far as one {@code operation} commit; deletes them when it cannot. */
  public synchronized CommitResult commit(String operation) {
    long start = System.nanoTime();
    long now = writer.timestampAfter(state);
    List<Action> actions = new ArrayList<>(written);
    Map<String, String> metrics = new LinkedHashMap<>();
    metrics.put("numOutputRows", Long.toString(rows));
    metrics.put("numTargetRowsInserted", Long.toString(rows));
    metrics.put("numTargetFilesAdded", Integer.toString(written.size()));
    metrics.put("numTargetBytesAdded", Long.toString(written.stream().mapToLong(AddFile::size).sum()));
    actions.add(0, CommitInfo.of(now, operation, Map.of(), metrics, state.version, actions.size()).serializable());
    long version = state.version + 1;
    writer.write(version, actions, now, written, state);
    long ms = (System.nanoTime() - start) / 1_000_000;
    return new CommitResult(version, true, rows, 0, 0, rows, written.size(), 0, 1, ms);
  }

  /** Deletes the files written so far (the load failed before its commit). */
  public synchronized void abort() {
    writer.deleteWritten(written);
    written.clear();
  }
}
