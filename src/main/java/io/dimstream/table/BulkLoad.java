package io.dimstream.table;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.table.internal.commit.BulkLoadCommit;
import java.util.List;

/**
 * The first rows of an empty table, written in parallel and committed as one commit ({@link DeltaTable#bulkLoad}).
 * Rows are written bucket by bucket: a caller groups versions by {@link #bucketOf} and calls {@link #write} once per
 * bucket with every version of it, from any thread; nothing is visible until {@link #commit}.
 */
public final class BulkLoad {
  private final BulkLoadCommit load;

  BulkLoad(BulkLoadCommit load) {
    this.load = load;
  }

  /** How many buckets the table has (its {@code dimstream.buckets} property). */
  public int buckets() {
    return load.buckets();
  }

  /** The bucket in {@code [0, buckets())} a key's versions belong to. */
  public int bucketOf(BusinessKey key) {
    return load.bucketOf(key);
  }

  /**
   * Writes the data files of one bucket. Thread-safe; call it at most once per bucket.
   *
   * @param versions every version of every key of the bucket, in any order, with distinct identities
   * @throws TableException when a version is of another bucket or a file cannot be written
   */
  public void write(int bucket, List<Version> versions) {
    load.write(bucket, versions);
  }

  /**
   * The files this load wrote so far, as the {@code add} actions of the Delta log (JSON lines), for a load whose
   * buckets are written by several processes: each writes its buckets with a {@code BulkLoad} of its own and hands
   * these to the one that commits, which {@link #adopt}s them.
   */
  public List<String> writtenActions() {
    return load.writtenActions();
  }

  /**
   * Takes into this load's commit the files that another {@code BulkLoad} of the same table wrote
   * ({@link #writtenActions}), holding {@code rows} versions; {@link #abort} then deletes them too.
   *
   * @throws TableException when a line is not the {@code add} action of a data file inside the table
   */
  public void adopt(List<String> addActions, long rows) {
    load.adopt(addActions, rows);
  }

  /**
   * Commits every bucket written as one commit with operation {@code operation} (a first load: {@link
   * Operation#WRITE}).
   *
   * @throws CommitConflictException when another writer committed first; the written files are deleted
   * @throws CommitStateUnknownException when the commit file's fate is unknown; nothing is deleted
   */
  public CommitResult commit(Operation operation) {
    return load.commit(operation.name());
  }

  /** Deletes the files written so far, when the load is given up before {@link #commit}. */
  public void abort() {
    load.abort();
  }
}
