package io.dimstream.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.config.Column;
import io.dimstream.config.DimensionSpec;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongFunction;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SCD2 dimension stored as a Delta Lake table (Parquet data files plus a {@code _delta_log}) that any Delta
 * reader opens as it is. The table is self-describing: the dimension's key, sequence, attribute columns and output
 * names are stored in {@code metaData.configuration["dimstream.spec"]}, so {@link #open(Path)} needs nothing else.
 *
 * <p>Layout: partitioned by {@code is_current}; open versions live in {@code dimstream.buckets} hash buckets of the
 * key (one file per bucket, rewritten copy-on-write when a key of the bucket changes); closed versions are appended
 * as new files and rewritten only when a change touches one of their identities.
 *
 * <p>Thread safety: an instance may be shared; commits from several instances or processes on the same path are
 * serialized by put-if-absent of the next commit file, the loser re-plans on the new snapshot.
 */
public final class DeltaTable {
  /** How many target-size files one optimize bin may produce (bounds the rows optimize holds in memory). */
  private static final int CLUSTER_FILES = 10;

  static final String ENGINE_INFO = "dimstream/0.1";
  private static final Logger LOG = LoggerFactory.getLogger(DeltaTable.class);

  private final Path root;
  private final DeltaLog log;
  private final TableOptions options;
  private final Map<String, FileStats> stats = new ConcurrentHashMap<>();
  private final Map<String, TableLayout> layouts = new ConcurrentHashMap<>();
  private volatile TableState latest;

  private DeltaTable(Path root, TableOptions options, TableState state) {
    this.root = root;
    this.log = new DeltaLog(root);
    this.options = options;
    this.latest = state;
  }

  /** Creates a table for {@code spec} at {@code path} with default {@link TableOptions}. */
  public static DeltaTable create(Path path, DimensionSpec spec, Map<String, String> properties) {
    return create(path, spec, properties, TableOptions.defaults());
  }

  /**
   * Creates a new, empty table: version 0 holds protocol (reader 1, writer 2), metaData (schema, partition column
   * {@code is_current}, configuration = {@code properties} plus {@code dimstream.spec}) and commitInfo.
   *
   * @param properties table properties, e.g. {@code dimstream.buckets} (default 64), {@code dimstream.codec}
   *                   (zstd|snappy), {@code delta.checkpointInterval} (default 10); may be empty, not null
   * @throws TableException when the directory already holds a table, or a property is invalid
   */
  public static DeltaTable create(Path path, DimensionSpec spec, Map<String, String> properties, TableOptions options) {
    Objects.requireNonNull(spec, "spec");
    Path root = path.toAbsolutePath().normalize();
    DeltaLog log = new DeltaLog(root);
    if (!log.commitVersions().isEmpty()) {
      throw TableErrors.alreadyExists(root);
    }
    Map<String, String> conf = new LinkedHashMap<>(properties);
    conf.put(SpecCodec.PROPERTY, SpecCodec.toJson(spec));
    conf.putIfAbsent(TableProperties.BUCKETS, Integer.toString(TableProperties.buckets(conf)));
    TableProperties.codec(conf);
    TableProperties.currentCodec(conf);
    TableProperties.checkpointInterval(conf);
    TableProperties.tombstoneRetention(conf);
    TableProperties.targetFileRows(conf);
    TableLayout layout = new TableLayout(spec);
    long now = options.clock().millis();
    Metadata md = new Metadata(UUID.randomUUID().toString(), spec.name(), layout.deltaSchemaString(),
        layout.partitionColumns(), conf, now);
    ObjectNode info = commitInfo(now, "CREATE TABLE");
    info.with("operationParameters").put("partitionBy", "[\"" + layout.isCurrent + "\"]");
    info.put(CommitInfo.ACTION_COUNT, 2);
    List<String> lines = List.of(ActionCodec.toJson(new CommitInfo(info)), ActionCodec.toJson(Protocol.DEFAULT),
        ActionCodec.toJson(md));
    if (!log.putIfAbsent(0, lines, now)) {
      throw TableErrors.alreadyExists(root);
    }
    LOG.info("{}: created table version 0 for dimension {}", root, spec.name());
    return new DeltaTable(root, options, LogReplay.load(log, null));
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
    Path root = path.toAbsolutePath().normalize();
    DeltaTable t = new DeltaTable(root, options, LogReplay.load(new DeltaLog(root), null));
    t.layout(t.latest);
    return t;
  }

  /** Opens the table, or creates it (empty properties) when the directory holds none; see {@link #evolve}. */
  public static DeltaTable openOrCreate(Path path, DimensionSpec spec) {
    return openOrCreate(path, spec, Map.of(), TableOptions.defaults());
  }

  /**
   * Opens the table at {@code path} and evolves it to {@code spec} ({@link #evolve}), or creates it with
   * {@code properties} when there is none. Properties of an existing table are left as they are.
   */
  public static DeltaTable openOrCreate(Path path, DimensionSpec spec, Map<String, String> properties,
      TableOptions options) {
    Path root = path.toAbsolutePath().normalize();
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
    t.evolve(spec);
    return t;
  }

  /** The table root directory (absolute). */
  public Path path() {
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
    return snapshot(refresh());
  }

  /**
   * The snapshot at table version {@code version}.
   *
   * @throws TableException when the version does not exist (the message gives the available range)
   */
  public Snapshot snapshotAt(long version) {
    TableState s = refresh();
    if (version == s.version) {
      return snapshot(s);
    }
    return snapshot(LogReplay.load(log, version));
  }

  /**
   * The snapshot of the latest version committed at or before {@code time} (commit time = the commit file's
   * modification time, as in Delta). A time after the latest commit gives the latest version.
   *
   * @throws TableException when {@code time} is before the first commit
   */
  public Snapshot snapshotAsOf(Instant time) {
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
      throw TableErrors.timestampBeforeFirstCommit(root, time,
          Instant.ofEpochMilli(log.commitTimestamp(versions.get(0))));
    }
    return snapshotAt(versions.get(found));
  }

  /**
   * The operations that made the table, newest first (as {@code DESCRIBE HISTORY}): one entry per commit file,
   * with commitInfo's operation, parameters and metrics.
   */
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
      if (ci == null) {
        out.add(new CommitSummary(v, ts, "", Map.of(), Map.of()));
      } else {
        out.add(new CommitSummary(v, ts, ci.json().path("operation").asText(""),
            strings(ci.json().get("operationParameters")), strings(ci.json().get("operationMetrics"))));
      }
    }
    return out;
  }

  /** The last {@code txn} version the latest snapshot records for {@code appId}, or -1 when none. */
  public long txnVersion(String appId) {
    return latest().txnVersion(appId);
  }

  /** Starts a single-attempt transaction on the latest snapshot. */
  public Transaction startTransaction() {
    return new Transaction(this, latest());
  }

  /**
   * Applies a batch of version changes as one atomic commit, re-planning on the newer snapshot when another
   * writer wins the race, up to {@link TableOptions#maxCommitAttempts()} attempts. See
   * {@link Transaction#commit} for the semantics; a batch whose {@code txns} versions are all already recorded
   * changes nothing and returns {@code committed == false}.
   *
   * @throws CommitConflictException when every attempt lost its race
   * @throws CommitStateUnknownException when the outcome of writing a commit file is unknown
   */
  public CommitResult commit(List<VersionChange> changes, Map<String, Long> txns, String operation) {
    return retrying(attempt -> startTransaction().commit(changes, txns, operation));
  }

  private <T> T retrying(LongFunction<T> attempt) {
    for (int i = 1; ; i++) {
      try {
        T r = attempt.apply(i);
        if (r instanceof CommitResult c && i > 1) {
          @SuppressWarnings("unchecked")
          T withAttempts = (T) new CommitResult(c.version(), c.committed(), c.rowsInserted(), c.rowsUpdated(),
              c.rowsDeleted(), c.rowsWritten(), c.filesAdded(), c.filesRemoved(), i, c.durationMs());
          return withAttempts;
        }
        return r;
      } catch (CommitConflictException e) {
        if (i >= options.maxCommitAttempts()) {
          throw TableErrors.commitConflict(log.commitFile(e.version()), e.version(), i);
        }
        LOG.info("{}: version {} was taken by another writer; re-planning (attempt {} of {})", root, e.version(),
            i + 1, options.maxCommitAttempts());
        backoff(i);
      }
    }
  }

  private void backoff(int attempt) {
    long base = options.retryBackoff().toMillis() << Math.min(attempt - 1, 10);
    try {
      Thread.sleep(base + ThreadLocalRandom.current().nextLong(base + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TableException(root + ": interrupted while waiting to retry a commit", e);
    }
  }

  /**
   * Brings the table to {@code spec}: new attribute columns are added (nullable; older files read them as null)
   * and the stored spec is replaced, in one commit with a {@code metaData} action. Nothing is written when the
   * spec already matches.
   *
   * @return the spec stored afterwards
   * @throws TableException naming the column and the fix when a column's type changed, a column was dropped, or the
   *     key, sequence, output column names or dimension name changed
   */
  public DimensionSpec evolve(DimensionSpec spec) {
    return retrying(attempt -> {
      Snapshot s = latest();
      String asked = SpecCodec.toJson(spec);
      if (asked.equals(s.properties().get(SpecCodec.PROPERTY))) {
        return s.spec();
      }
      DimensionSpec stored = s.spec();
      checkCompatible(stored, spec);
      TableLayout layout = new TableLayout(spec);
      Map<String, String> conf = new LinkedHashMap<>(s.properties());
      conf.put(SpecCodec.PROPERTY, asked);
      Metadata old = s.state.metadata;
      Metadata md = new Metadata(old.id(), old.name(), layout.deltaSchemaString(), old.partitionColumns(), conf,
          old.createdTime());
      long now = commitTimestamp(s.state);
      List<String> added = SpecCodec.tableColumns(spec).stream().map(Column::name)
          .filter(n -> stored.column(n) == null).toList();
      ObjectNode info = commitInfo(now, added.isEmpty() ? "SET TBLPROPERTIES" : "ADD COLUMNS");
      info.with("operationParameters").put("columns", added.toString());
      info.put(CommitInfo.ACTION_COUNT, 1);
      writeCommit(s.version() + 1, List.of(new CommitInfo(info), md), now, List.of(), s.state);
      LOG.info("{}: evolved the schema at version {}; added columns {}", root, s.version() + 1, added);
      return spec();
    });
  }

  private void checkCompatible(DimensionSpec stored, DimensionSpec asked) {
    if (!stored.name().equals(asked.name())) {
      throw TableErrors.structureChanged(root, "dimension name", stored.name(), asked.name());
    }
    if (!stored.key().equals(asked.key())) {
      throw TableErrors.structureChanged(root, "key", stored.key(), asked.key());
    }
    if (!stored.sequence().equals(asked.sequence())) {
      throw TableErrors.structureChanged(root, "sequence", stored.sequence(), asked.sequence());
    }
    if (!stored.output().equals(asked.output())) {
      throw TableErrors.structureChanged(root, "output column names", stored.output(), asked.output());
    }
    for (Column c : SpecCodec.tableColumns(stored)) {
      Column n = asked.column(c.name());
      if (n == null || n.name().equals(asked.deleteRule().column())) {
        throw TableErrors.droppedColumn(root, c.name());
      }
      if (!n.type().equals(c.type())) {
        throw TableErrors.typeChanged(root, c.name(), c.type(), n.type());
      }
    }
  }

  /**
   * Merges small closed-version files (under half of {@code dimstream.targetFileRows} rows) into files of up to
   * that many rows, clustered by key: the small files are taken in groups of up to ten target files' worth of rows,
   * each group sorted by (key, valid_from) and cut into files with disjoint key ranges (never inside one key's
   * versions), so an offline key lookup reads one file per group. One {@code OPTIMIZE} commit whose adds and removes have {@code dataChange = false};
   * rows are unchanged. Memory: one group's rows (ten target files).
   */
  public OptimizeResult optimize() {
    return retrying(attempt -> {
      Snapshot s = latest();
      long target = TableProperties.targetFileRows(s.properties());
      CompressionCodecName codec = TableProperties.codec(s.properties());
      List<AddFile> small = new ArrayList<>();
      for (AddFile a : s.state.adds.values()) {
        FileStats st = stats(a, s.layout);
        if (!s.isCurrentFile(a) && st.numRecords >= 0 && st.numRecords < target / 2) {
          small.add(a);
        }
      }
      // Bins of up to CLUSTER_FILES target files: each is sorted by key and cut into files of at most `target`
      // rows, so the files of a bin cover disjoint key ranges and a key lookup reads one of them.
      long binRows = target * CLUSTER_FILES;
      List<List<AddFile>> bins = new ArrayList<>();
      List<AddFile> bin = new ArrayList<>();
      long rows = 0;
      for (AddFile a : small) {
        long n = stats(a, s.layout).numRecords;
        if (!bin.isEmpty() && rows + n > binRows) {
          bins.add(bin);
          bin = new ArrayList<>();
          rows = 0;
        }
        bin.add(a);
        rows += n;
      }
      bins.add(bin);
      bins.removeIf(b -> b.size() < 2);
      if (bins.isEmpty()) {
        return new OptimizeResult(s.version(), false, 0, 0, 0);
      }
      long start = System.nanoTime();
      List<AddFile> added = new ArrayList<>();
      List<AddFile> removed = new ArrayList<>();
      long rewritten = 0;
      String codecName = codec.name().toLowerCase(Locale.ROOT);
      try {
        for (List<AddFile> b : bins) {
          List<Version> all = new ArrayList<>();
          for (AddFile a : b) {
            try (DataFiles.RowIterator it = DataFiles.read(DataFiles.resolve(root, a.path()), s.layout, s.version())) {
              it.forEachRemaining(all::add);
            }
          }
          all.sort(ValueOrder.BY_IDENTITY);
          int from = 0;
          while (from < all.size()) {
            // cut after `target` rows, but never inside one key's versions: a key lives in one file of the group
            int to = (int) Math.min(all.size(), from + target);
            while (to < all.size() && all.get(to).key().equals(all.get(to - 1).key())) {
              to++;
            }
            added.add(DataFiles.write(root, Buckets.closedFile(s.layout.isCurrent + "=false", codecName),
                all.subList(from, to), s.layout, false, codec).withDataChange(false));
            from = to;
          }
          removed.addAll(b);
          rewritten += all.size();
        }
      } catch (RuntimeException e) {
        deleteWritten(added);
        throw e;
      }
      long now = commitTimestamp(s.state);
      List<Action> actions = new ArrayList<>();
      removed.forEach(r -> actions.add(r.remove(now, false)));
      actions.addAll(added);
      ObjectNode info = commitInfo(now, "OPTIMIZE");
      info.with("operationParameters").put("predicate", "[]");
      info.with("operationParameters").put("zOrderBy", "[]");
      ObjectNode m = info.with("operationMetrics");
      m.put("numRemovedFiles", Integer.toString(removed.size()));
      m.put("numAddedFiles", Integer.toString(added.size()));
      m.put("numRemovedBytes", Long.toString(removed.stream().mapToLong(AddFile::size).sum()));
      m.put("numAddedBytes", Long.toString(added.stream().mapToLong(AddFile::size).sum()));
      m.put("numOutputRows", Long.toString(rewritten));
      m.put("executionTimeMs", Long.toString((System.nanoTime() - start) / 1_000_000));
      info.put("readVersion", s.version());
      info.put(CommitInfo.ACTION_COUNT, actions.size());
      actions.add(0, new CommitInfo(info));
      writeCommit(s.version() + 1, actions, now, added, s.state);
      return new OptimizeResult(s.version() + 1, true, removed.size(), added.size(), rewritten);
    });
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
    Snapshot s = latest();
    Duration max = TableProperties.tombstoneRetention(s.properties());
    if (retention.isNegative() || retention.compareTo(max) > 0) {
      throw TableErrors.badRetention(root, retention, max);
    }
    long now = options.clock().millis();
    long cutoff = now - retention.toMillis();
    Set<Path> keep = new HashSet<>();
    s.state.adds.keySet().forEach(p -> keep.add(DataFiles.resolve(root, p).normalize()));
    s.state.removes.values().stream().filter(r -> r.deletionTimestamp() >= cutoff)
        .forEach(r -> keep.add(DataFiles.resolve(root, r.path()).normalize()));
    List<Path> doomed = new ArrayList<>();
    long[] bytes = {0};
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
          return !dir.equals(root) && (name.startsWith("_") || name.startsWith(".")) ? FileVisitResult.SKIP_SUBTREE
              : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          String name = file.getFileName().toString();
          if (!name.startsWith("_") && !name.startsWith(".") && !keep.contains(file.normalize())
              && attrs.lastModifiedTime().toMillis() < cutoff) {
            doomed.add(file);
            bytes[0] += attrs.size();
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw TableErrors.io("list the table directory", root, e);
    }
    ObjectNode startInfo = commitInfo(now, "VACUUM START");
    startInfo.with("operationParameters").put("retentionCheckEnabled", true);
    startInfo.with("operationParameters").put("specifiedRetentionMillis", retention.toMillis());
    startInfo.with("operationParameters").put("defaultRetentionMillis", max.toMillis());
    startInfo.with("operationMetrics").put("numFilesToDelete", Integer.toString(doomed.size()));
    startInfo.with("operationMetrics").put("sizeOfDataToDelete", Long.toString(bytes[0]));
    appendInfoCommit(startInfo);
    List<String> deleted = new ArrayList<>();
    for (Path f : doomed) {
      try {
        Files.deleteIfExists(f);
        deleted.add(root.relativize(f).toString().replace('\\', '/'));
      } catch (IOException e) {
        LOG.warn("{}: vacuum could not delete {}: {}", root, f, e.toString());
      }
    }
    ObjectNode endInfo = commitInfo(options.clock().millis(), "VACUUM END");
    endInfo.with("operationParameters").put("status", "COMPLETED");
    endInfo.with("operationMetrics").put("numDeletedFiles", Integer.toString(deleted.size()));
    endInfo.with("operationMetrics").put("numVacuumedDirectories", "0");
    appendInfoCommit(endInfo);
    LOG.info("{}: vacuum deleted {} files ({} bytes) older than {}", root, deleted.size(), bytes[0], retention);
    return new VacuumResult(deleted, bytes[0]);
  }

  private void appendInfoCommit(ObjectNode info) {
    retrying(attempt -> {
      TableState s = refresh();
      long now = commitTimestamp(s);
      info.put("timestamp", now);
      info.put(CommitInfo.ACTION_COUNT, 0);
      writeCommit(s.version + 1, List.of(new CommitInfo(info)), now, List.of(), s);
      return null;
    });
  }

  /** Writes a checkpoint of the latest version now (normally written every {@code delta.checkpointInterval} commits). */
  public void checkpoint() {
    TableState s = refresh();
    Checkpoints.write(log, s, options.clock().millis() - TableProperties.tombstoneRetention(
        s.metadata.configuration()).toMillis());
  }

  // ---- package-private plumbing ----

  synchronized TableState refresh() {
    TableState s = LogReplay.advance(log, latest);
    latest = s;
    return s;
  }

  Snapshot snapshot(TableState s) {
    return new Snapshot(this, s, layout(s));
  }

  TableLayout layout(TableState s) {
    String json = s.metadata.configuration().get(SpecCodec.PROPERTY);
    if (json == null) {
      throw TableErrors.notADimensionTable(root);
    }
    return layouts.computeIfAbsent(json, j -> {
      try {
        return new TableLayout(SpecCodec.fromJson(j));
      } catch (Exception e) {
        throw TableErrors.badStoredSpec(root, e);
      }
    });
  }

  FileStats stats(AddFile a, TableLayout layout) {
    return stats.computeIfAbsent(a.path() + '\n' + layout.spec.name() + layout.dataColumns.size(),
        k -> FileStats.parse(a.stats(), layout));
  }

  /** A commit time after the base version's, so commit times (file modification times) never go backwards. */
  long commitTimestamp(TableState base) {
    return Math.max(options.clock().millis(), base.timestampMillis + 1);
  }

  /**
   * Writes commit {@code version} with put-if-absent; on a lost race deletes the data files this attempt wrote and
   * throws {@link CommitConflictException}. Afterwards caches the new state and checkpoints when due.
   */
  void writeCommit(long version, List<Action> actions, long now, List<AddFile> written, TableState base) {
    try {
      LogReplay.checkWritable(root, base);
    } catch (TableException e) {
      deleteWritten(written);
      throw e;
    }
    List<String> lines = new ArrayList<>(actions.size());
    actions.forEach(a -> lines.add(ActionCodec.toJson(a)));
    if (!log.putIfAbsent(version, lines, now)) {
      deleteWritten(written);
      throw new CommitConflictException(log.commitFile(version) + ": version " + version + " already exists",
          version);
    }
    TableState.Builder b = base.toBuilder();
    b.apply(actions);
    TableState s = b.build(version, now);
    synchronized (this) {
      if (latest.version < version) {
        latest = s;
      }
    }
    LOG.debug("{}: committed version {} ({} actions)", root, version, actions.size());
    int interval = TableProperties.checkpointInterval(s.metadata.configuration());
    if (version % interval == 0) {
      try {
        Checkpoints.write(log, s, now - TableProperties.tombstoneRetention(s.metadata.configuration()).toMillis());
      } catch (TableException e) {
        LOG.warn("{}: checkpoint at version {} failed; readers replay the commits instead: {}", root, version,
            e.getMessage());
      }
    }
  }

  void deleteWritten(List<AddFile> written) {
    for (AddFile a : written) {
      DeltaLog.deleteQuietly(DataFiles.resolve(root, a.path()));
    }
  }

  DeltaLog deltaLog() {
    return log;
  }

  private static ObjectNode commitInfo(long now, String operation) {
    ObjectNode info = ActionCodec.JSON.createObjectNode();
    info.put("timestamp", now);
    info.put("operation", operation);
    info.putObject("operationParameters");
    info.putObject("operationMetrics");
    info.put("engineInfo", ENGINE_INFO);
    info.put("txnId", UUID.randomUUID().toString());
    return info;
  }

  private static Map<String, String> strings(JsonNode n) {
    Map<String, String> out = new HashMap<>();
    if (n != null && n.isObject()) {
      n.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText()
          : e.getValue().toString()));
    }
    return out;
  }
}
