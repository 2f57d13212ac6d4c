package io.dimstream.table;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.TableLocation;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.TableFeatures;
import io.dimstream.table.internal.commit.BulkLoadCommit;
import io.dimstream.table.internal.commit.ChangeCommit;
import io.dimstream.table.internal.commit.CommitRetry;
import io.dimstream.table.internal.commit.CommitWriter;
import io.dimstream.table.internal.commit.PropertyDrift;
import io.dimstream.table.internal.commit.ProtocolRepair;
import io.dimstream.table.internal.commit.ProtocolUpgrade;
import io.dimstream.table.internal.commit.SchemaEvolution;
import io.dimstream.table.internal.commit.TableCreation;
import io.dimstream.table.internal.files.FileStats;
import io.dimstream.table.internal.files.LayoutCache;
import io.dimstream.table.internal.files.StatsCache;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.index.CurrentRowIndex;
import io.dimstream.table.internal.log.DeltaLog;
import io.dimstream.table.internal.log.LogReplay;
import io.dimstream.table.internal.log.SnapshotManager;
import io.dimstream.table.internal.log.TableState;
import io.dimstream.table.internal.maintenance.Checkpointer;
import io.dimstream.table.internal.maintenance.DeletionVectorCompaction;
import io.dimstream.table.internal.maintenance.Optimizer;
import io.dimstream.table.internal.maintenance.Vacuum;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SCD2 dimension stored as a Delta Lake table (Parquet data files plus a {@code _delta_log}) that any Delta
 * reader opens as it is. The table is self-describing: the dimension's key, sequence, attribute columns and output
 * names are stored in {@code metaData.configuration["dimstream.spec"]}, so {@link #open(Path)} needs nothing else.
 *
 * <p>Layout: partitioned by {@code is_current}. New tables are merge-on-read (protocol reader 3 / writer 7 with
 * deletion vectors): a commit writes its new rows to new files and marks the rows they replace as deleted with a
 * deletion vector on the file that holds them; {@link #newCompaction} rewrites files with many deleted rows. With
 * {@code delta.enableDeletionVectors=false} the table is copy-on-write (protocol 1 / 2): open versions live in
 * {@code dimstream.buckets} hash buckets of the key (one file per bucket, rewritten when a key of the bucket
 * changes); closed versions are appended as new files and rewritten only when a change touches one of their
 * identities.
 *
 * <p>Thread safety: an instance may be shared; commits from several instances or processes on the same path are
 * serialized by put-if-absent of the next commit file, the loser re-plans on the new snapshot.
 */
public final class DeltaTable {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaTable.class);
  private final ObjectStore root;
  private final TableOptions options;
  private final SnapshotManager snapshots;
  private final LayoutCache layouts;
  private final StatsCache stats = new StatsCache();
  private final Checkpointer checkpointer;
  private final CommitWriter writer;
  private final CommitRetry retry;
  private final CurrentRowIndex positions;
  /** Set once this instance found (or made) the protocol complete; checked before its first write. */
  private final AtomicBoolean protocolComplete = new AtomicBoolean();

  private DeltaTable(ObjectStore root, TableOptions options, TableState state) {
    DeltaLog log = new DeltaLog(root);
    this.root = root;
    this.options = options;
    this.snapshots = new SnapshotManager(log, state);
    this.layouts = new LayoutCache(root);
    this.checkpointer = new Checkpointer(log, options.backgroundCheckpoints());
    this.writer = new CommitWriter(snapshots, options.clock(), checkpointer::writeIfDue);
    this.retry = new CommitRetry(log, options);
    this.positions = new CurrentRowIndex(root, options.positionIndexDir());
  }

  /** Creates a table for {@code spec} at {@code path} with default {@link TableOptions}. */
  public static DeltaTable create(Path path, DimensionSpec spec, Map<String, String> properties) {
    return create(path, spec, properties, TableOptions.defaults());
  }

  /** As {@link #create(ObjectStore, DimensionSpec, Map, TableOptions)} with default {@link TableOptions}. */
  public static DeltaTable create(ObjectStore store, DimensionSpec spec, Map<String, String> properties) {
    return create(store, spec, properties, TableOptions.defaults());
  }

  /** As {@link #create(ObjectStore, DimensionSpec, Map, TableOptions)} in the local directory {@code path}. */
  public static DeltaTable create(Path path, DimensionSpec spec, Map<String, String> properties,
      TableOptions options) {
    return create(new LocalStore(path), spec, properties, options);
  }

  /**
   * Creates a new, empty table: version 0 holds protocol (reader 3 / writer 7 with {@code deletionVectors}, or
   * reader 1 / writer 2 with {@code delta.enableDeletionVectors=false}), metaData (schema, partition column
   * {@code is_current}, configuration = {@code properties} plus {@code dimstream.spec}) and commitInfo.
   *
   * @param properties table properties, e.g. {@code delta.enableDeletionVectors} (default true),
   *                   {@code dimstream.buckets} (default 64, copy-on-write only), {@code dimstream.codec}
   *                   (zstd|snappy), {@code delta.checkpointInterval} (default 10); may be empty, not null
   * @throws TableException when the directory already holds a table, or a property is invalid
   */
  public static DeltaTable create(ObjectStore root, DimensionSpec spec, Map<String, String> properties,
      TableOptions options) {
    Objects.requireNonNull(spec, "spec");
    DeltaLog log = new DeltaLog(root);
    TableCreation.create(log, spec, properties, options.clock().millis());
    return new DeltaTable(root, options, LogReplay.load(log, null));
  }

  /**
   * Whether {@code store} holds a table: any object under {@code _delta_log/}. The one test every command makes
   * before it creates a table there or refuses a location without one.
   */
  public static boolean exists(ObjectStore store) throws IOException {
    return !store.list(DeltaLog.DIR, null).isEmpty();
  }

  /** Opens an existing table with default {@link TableOptions}. */
  public static DeltaTable open(Path path) {
    return open(path, TableOptions.defaults());
  }

  /**
   * Opens an existing table, loading its latest snapshot (newest checkpoint plus later commits).
   *
   * @throws TableException when there is no table, the log is corrupt, or it was not written by dimstream
   */
  public static DeltaTable open(Path path, TableOptions options) {
    return open(new LocalStore(path), options);
  }

  /** Opens the table in {@code store} with default {@link TableOptions}. */
  public static DeltaTable open(ObjectStore store) {
    return open(store, TableOptions.defaults());
  }

  /**
   * Opens the existing table in {@code root} (a local directory or an object store prefix), loading its latest
   * snapshot.
   *
   * @throws TableException when there is no table, the log is corrupt, or it was not written by dimstream
   */
  public static DeltaTable open(ObjectStore root, TableOptions options) {
    TableState state = LogReplay.load(new DeltaLog(root), null);
    DeltaTable t = new DeltaTable(root, options, state);
    t.layouts.of(state.metadata); // fails here, not at first use, when dimstream did not write the table
    return t;
  }

  /**
   * Opens the table, or creates it with the spec's {@link DimensionSpec#tableProperties()} when the directory holds
   * none; see {@link #evolve}.
   */
  public static DeltaTable openOrCreate(Path path, DimensionSpec spec) {
    return openOrCreate(path, spec, spec.tableProperties(), TableOptions.defaults());
  }

  /** As {@link #openOrCreate(Path, DimensionSpec)} for a table in {@code store}. */
  public static DeltaTable openOrCreate(ObjectStore store, DimensionSpec spec) {
    return openOrCreate(store, spec, spec.tableProperties(), TableOptions.defaults());
  }

  /** As {@link #openOrCreate(ObjectStore, DimensionSpec, Map, TableOptions)} in the local directory {@code path}. */
  public static DeltaTable openOrCreate(Path path, DimensionSpec spec, Map<String, String> properties,
      TableOptions options) {
    return openOrCreate(new LocalStore(path), spec, properties, options);
  }

  /**
   * Opens the table at {@code path} and evolves it to {@code spec} ({@link #evolve}), or creates it with
   * {@code properties} when there is none. Properties of an existing table are left as they are: each of
   * {@code properties} the table does not have is logged as a warning that says how to change it, if it can be.
   */
  public static DeltaTable openOrCreate(ObjectStore root, DimensionSpec spec, Map<String, String> properties,
      TableOptions options) {
    if (new DeltaLog(root).commitVersions().isEmpty()) {
      try {
        return create(root, spec, properties, options);
      } catch (TableException e) {
        if (new DeltaLog(root).commitVersions().isEmpty()) {
          throw e;
        }
        // another process created it concurrently: open it below
      }
    }
    DeltaTable t = open(root, options);
    PropertyDrift.warnings(root, t.latest().state, properties).forEach(LOG::warn);
    t.evolve(spec);
    return t;
  }

  /**
   * The table root directory (absolute) of a local table.
   *
   * @throws io.dimstream.storage.StorageException when the table is in an object store
   */
  public Path path() {
    return root.location().localPath();
  }

  /** Where the table lives: a local directory or an object store prefix. */
  public TableLocation location() {
    return root.location();
  }

  /** The store the table's files are read from and written to. */
  public ObjectStore store() {
    return root;
  }

  /** The dimension spec stored in the latest version (as rebuilt from {@code dimstream.spec}). */
  public DimensionSpec spec() {
    return latest().spec();
  }

  /** The table properties of the latest version. */
  public Map<String, String> properties() {
    return latest().properties();
  }

  /** The latest snapshot, after reading any commit other writers added since the last call. */
  public Snapshot latest() {
    return snapshot(snapshots.refresh());
  }

  /**
   * The version of the newest snapshot this instance has read or committed, without reading the log: what it knows,
   * which other writers may have passed.
   */
  public long knownVersion() {
    return snapshots.known().version;
  }

  /**
   * The snapshot at table version {@code version}.
   *
   * @throws TableException when the version does not exist (the message gives the available range)
   */
  public Snapshot snapshotAt(long version) {
    return snapshot(snapshots.at(version));
  }

  /**
   * The snapshot of the latest version committed at or before {@code time} (commit time = the commit file's
   * modification time, as in Delta). A time after the latest commit gives the latest version.
   *
   * @throws TableException when {@code time} is before the first commit
   */
  public Snapshot snapshotAsOf(Instant time) {
    return snapshotAt(snapshots.versionAsOf(time));
  }

  /**
   * The operations that made the table, newest first (as {@code DESCRIBE HISTORY}): one entry per commit file,
   * with commitInfo's operation, parameters and metrics.
   */
  public List<CommitSummary> history() {
    return snapshots.history();
  }

  /** The last {@code txn} version the latest snapshot records for {@code appId}, or -1 when none. */
  public long txnVersion(String appId) {
    return latest().txnVersion(appId);
  }

  /** Starts a single-attempt transaction on the latest snapshot. */
  public Transaction startTransaction() {
    completeProtocolOnce();
    return new Transaction(new ChangeCommit(writer, stats, positions), latest());
  }

  /**
   * Starts a bulk load: the first rows of this table written in parallel, bucket by bucket, then one commit.
   *
   * @throws TableException when the table already holds data files
   */
  public BulkLoad bulkLoad() {
    completeProtocolOnce();
    Snapshot s = latest();
    return new BulkLoad(new BulkLoadCommit(writer, s.state, s.layout));
  }

  /**
   * A commit of version changes ({@link CommitBuilder}), applied as one atomic commit that re-plans on the newer
   * snapshot when another writer wins the race, up to {@link TableOptions#maxCommitAttempts()} attempts. The first
   * attempt plans on the state this instance knows, without a request to the store.
   *
   * <pre>{@code
   * table.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 41L)).apply(changes);
   * }</pre>
   *
   * <p>{@link CommitBuilder#apply} throws {@link CommitConflictException} when every attempt lost its race, and
   * {@link CommitStateUnknownException} when the outcome of writing a commit file is unknown (never retried: the
   * commit may have landed).
   */
  public CommitBuilder newCommit(Operation operation) {
    return new CommitBuilder(operation, request -> {
      completeProtocolOnce();
      // The first attempt plans on the state this process knows, without a request to the store: the commit file's
      // put-if-absent fails when another writer committed since, and the retry then reads the log and plans again.
      return retry.run(attempt -> new Transaction(new ChangeCommit(writer, stats, positions),
          attempt == 1 ? snapshot(snapshots.known()) : latest()).commit(request, attempt));
    });
  }

  /**
   * Brings the table to {@code spec}: new attribute columns are added (nullable; older files read them as null),
   * widened attribute columns ({@code int → long}, a decimal's precision up at the same scale) take the
   * {@code typeWidening} table feature (older files read as the wider type) and the stored spec is replaced, in one
   * commit with a {@code metaData} action (and a {@code protocol} action when the feature is new). Nothing is written
   * when the spec already matches.
   *
   * @return the spec stored afterwards
   * @throws TableException naming the column and the fix when a column's type changed other than by a widening, a
   *     key or sequence column was widened, a column was dropped, or the key, sequence, output column names or
   *     dimension name changed
   */
  public DimensionSpec evolve(DimensionSpec spec) {
    completeProtocolOnce();
    SchemaEvolution evolution = new SchemaEvolution(writer);
    return retry.run(attempt -> {
      Snapshot s = latest();
      return evolution.evolve(s.state, s.spec(), spec) ? spec() : s.spec();
    });
  }

  /**
   * Merges small closed-version files (under half of {@code dimstream.targetFileRows} rows) into files of up to
   * that many rows, clustered by key: the small files are taken in groups of up to ten target files' worth of rows,
   * each group sorted by (key, valid_from) and cut into files with disjoint key ranges (never inside one key's
   * versions), so an offline key lookup reads one file per group. One {@code OPTIMIZE} commit whose adds and removes have {@code dataChange = false};
   * rows are unchanged. Memory: one group's rows (ten target files).
   */
  public OptimizeResult optimize() {
    completeProtocolOnce();
    Optimizer optimizer = new Optimizer(writer, stats);
    OptimizeResult dvs = ChangeCommit.mergeOnRead(latest().state) ? newCompaction().runFull() : null;
    OptimizeResult small = retry.run(attempt -> {
      Snapshot s = latest();
      return optimizer.optimize(s.state, s.layout);
    });
    if (dvs == null || !dvs.committed()) {
      return small;
    }
    return small.committed() ? new OptimizeResult(small.version(), true, dvs.filesRemoved() + small.filesRemoved(),
        dvs.filesAdded() + small.filesAdded(), dvs.rowsRewritten() + small.rowsRewritten()) : dvs;
  }

  /**
   * A compaction of a merge-on-read table ({@link Compaction}): files with many deleted rows or few live rows are
   * rewritten without deletion vectors; rows are unchanged.
   *
   * <pre>{@code
   * table.newCompaction().owners(Ownership.of(Set.of(0, 2), 4)).runCycle();
   * }</pre>
   */
  public Compaction newCompaction() {
    return new Compaction(this::compact);
  }

  private OptimizeResult compact(boolean everyFile, Ownership owners) {
    completeProtocolOnce();
    DeletionVectorCompaction compaction = new DeletionVectorCompaction(writer, stats, positions);
    return retry.run(attempt -> {
      Snapshot s = latest();
      if (!ChangeCommit.mergeOnRead(s.state)) {
        return new OptimizeResult(s.version(), false, 0, 0, 0);
      }
      return compaction.compact(s.state, s.layout, everyFile, owners);
    });
  }

  /** Whether commits on the latest version go merge-on-read (deletion vectors), where several writers may commit. */
  public boolean mergeOnRead() {
    return ChangeCommit.mergeOnRead(latest().state);
  }

  /**
   * Deletes data files that no snapshot within {@code retention} references and that are older than
   * {@code retention}: files neither live in the latest version nor removed less than {@code retention} ago
   * (orphans of killed writers included). Never touches {@code _delta_log}. Logs {@code VACUUM START} and
   * {@code VACUUM END} commits, as Delta does.
   *
   * @param retention between zero and {@code delta.deletedFileRetentionDuration} (default 7 days)
   * @throws TableException when the retention is out of that range
   */
  public VacuumResult vacuum(Duration retention) {
    completeProtocolOnce();
    return new Vacuum(snapshots, writer, retry, options.clock()).vacuum(latest().state, retention);
  }

  /**
   * Moves a copy-on-write table to merge-on-read: one commit sets protocol reader 3 / writer 7 with the
   * {@code deletionVectors} feature and {@code delta.enableDeletionVectors=true}. Existing files stay as they are;
   * later commits mark replaced rows with deletion vectors. Readers that cannot apply deletion vectors can no longer
   * read the table afterwards.
   *
   * @return false when the table already uses deletion vectors (nothing is written)
   * @throws TableException when the table is governed by a protocol other than reader 1 / writer 2 or reader 3 /
   *     writer 7 with features dimstream honours (a widened copy-on-write table keeps {@code typeWidening}); the
   *     upgrade never lowers a protocol
   */
  public boolean upgradeToDeletionVectors() {
    completeProtocolOnce();
    ProtocolUpgrade upgrade = new ProtocolUpgrade(writer);
    return retry.run(attempt -> upgrade.upgrade(latest().state));
  }

  /**
   * The Delta table features the latest version's metadata puts in force that its protocol does not list (tables of
   * earlier dimstream releases miss {@code invariants}; Delta Spark refuses such a table); empty when complete.
   */
  public List<String> missingProtocolFeatures() {
    Snapshot s = latest();
    return TableFeatures.missing(s.state.protocol, s.state.metadata);
  }

  /**
   * What to tell a user of a command that only reads the table when features are missing from its protocol: that
   * Delta Spark refuses it and which command repairs it; empty when the protocol is complete.
   */
  public Optional<String> incompleteProtocolWarning() {
    List<String> missing = missingProtocolFeatures();
    return missing.isEmpty() ? Optional.empty() : Optional.of(TableErrors.incompleteProtocol(root, missing));
  }

  /**
   * Lists every missing feature ({@link #missingProtocolFeatures}) in one {@code UPGRADE PROTOCOL} commit that
   * changes nothing else, logged with what it added. Every method of this class that writes does this first, once
   * per instance, so the next write of a table from an earlier release repairs it.
   *
   * @return the features added; empty when the protocol was complete (nothing is written)
   * @throws TableException when a missing feature is one dimstream cannot write with
   */
  public List<String> completeProtocol() {
    ProtocolRepair repair = new ProtocolRepair(writer);
    List<String> added = retry.run(attempt -> repair.repair(latest().state));
    protocolComplete.set(true);
    return added;
  }

  private void completeProtocolOnce() {
    if (!protocolComplete.get()) {
      completeProtocol();
    }
  }

  /**
   * Heap bytes of the position index this instance keeps for merge-on-read commits: identity to file and row of
   * each current row (0 before the first merge-on-read commit built it), plus what it knows of the closed files it
   * wrote or read (row positions within a budget of a tenth of the heap, at most 256 MiB, Bloom filters beyond). For
   * sizing the compactor's heap.
   */
  public long positionIndexBytes() {
    return positions.bytes();
  }

  /**
   * Releases what this instance holds outside the heap: the position index kept on disk ({@link
   * TableOptions#positionIndexDir()}) is closed and stays there for the next instance. The table stays usable; a later
   * merge-on-read commit builds its index on the heap.
   */
  public void closeLocalState() {
    positions.close();
  }

  /** The part of {@link #positionIndexBytes()} that the closed files' row positions and identity filters take. */
  public long closedFileIndexBytes() {
    return positions.closedFileBytes();
  }

  /** Writes a checkpoint of the latest version now (normally written every {@code delta.checkpointInterval} commits). */
  public void checkpoint() {
    completeProtocolOnce();
    checkpointer.write(snapshots.refresh(), options.clock().millis());
  }

  // ---- package-private plumbing for Snapshot, Transaction and the tests ----

  Snapshot snapshot(TableState s) {
    return new Snapshot(this, s, layouts.of(s.metadata));
  }

  FileStats stats(AddFile a, TableLayout layout) {
    return stats.get(a, layout);
  }

  StatsCache statsCache() {
    return stats;
  }


  CommitWriter writer() {
    return writer;
  }

  DeltaLog deltaLog() {
    return snapshots.log();
  }
}
