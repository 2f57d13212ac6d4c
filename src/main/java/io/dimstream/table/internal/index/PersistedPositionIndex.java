package io.dimstream.table.internal.index;

import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The position index in a RocksDB database on local disk, beside the service's other state: the heap holds only the
 * data file paths, so a table of 100M keys costs the JVM no more than one of a thousand, and a restart finds the index
 * where it left it instead of reading every current file again.
 *
 * <p>Besides the entries it records which table and which of its versions the entries reflect, with the current files
 * of that version ({@link #reflected()}, {@link #record}). Entries change in place as commits apply; the record is
 * written after them, so after a crash the entries may be ahead of the record but never behind it: catching up from
 * the recorded files to the table's re-applies the same removals and puts, which changes nothing already applied.
 */
public final class PersistedPositionIndex implements PositionIndex, AutoCloseable {
  static {
    RocksDB.loadLibrary();
  }

  private static final byte[] STATE = "state".getBytes(StandardCharsets.UTF_8);
  /** Block cache for the entries' lookups: commits look up the rows they replace, spread over the key range. */
  private static final long CACHE_BYTES = 32L << 20;
  private static final long WRITE_BUFFER_BYTES = 32L << 20;

  private final Path dir;
  private final LRUCache cache;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private final RocksDB db;
  private final ColumnFamilyHandle entries;
  private final ColumnFamilyHandle fileIds;
  private final ColumnFamilyHandle currentFiles;
  private final ColumnFamilyHandle meta;
  private final WriteOptions plainWrites = new WriteOptions();
  private final WriteOptions bulkWrites = new WriteOptions().setDisableWAL(true);
  private final List<String> files = new ArrayList<>();
  private final Map<String, Integer> idsByPath = new HashMap<>();
  /** The current files last recorded, so that {@link #record} writes only what changed. */
  private Map<String, AddFile> recordedFiles = new HashMap<>();
  private long size;
  private WriteBatch bulk;

  /**
   * What the entries reflect: a table (its {@code metaData} id), its current files as the entries know them, and the
   * table version those are exactly ({@code version}), or -1 when the entries hold this writer's last commit but not
   * other writers' commits before it; {@code newest} is the newest table version the entries hold changes of.
   */
  public record Reflected(String tableId, long version, long newest, Map<String, AddFile> files) {}

  private PersistedPositionIndex(Path dir) throws RocksDBException {
    this.dir = dir;
    this.cache = new LRUCache(CACHE_BYTES);
    // Index and filter blocks stay outside the cache, held by the open files (about 1.5 bytes per entry, off the
    // heap): in a small cache the data blocks evicted them, and a commit's lookups read megabytes of filters back.
    BlockBasedTableConfig tables = new BlockBasedTableConfig()
        .setBlockCache(cache)
        .setFilterPolicy(new BloomFilter(10))
        .setCacheIndexAndFilterBlocks(false);
    this.cfOptions = new ColumnFamilyOptions().setTableFormatConfig(tables).setWriteBufferSize(WRITE_BUFFER_BYTES)
        .setMaxWriteBufferNumber(2);
    this.dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setMaxOpenFiles(-1).setMaxBackgroundJobs(2);
    List<ColumnFamilyDescriptor> families = List.of(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
        new ColumnFamilyDescriptor(bytes("file-ids"), cfOptions),
        new ColumnFamilyDescriptor(bytes("current-files"), cfOptions),
        new ColumnFamilyDescriptor(bytes("meta"), cfOptions));
    this.db = RocksDB.open(dbOptions, dir.toString(), families, handles);
    this.entries = handles.get(0);
    this.fileIds = handles.get(1);
    this.currentFiles = handles.get(2);
    this.meta = handles.get(3);
    loadFileIds();
  }

  /**
   * Opens (or creates) the index in {@code dir}.
   *
   * @throws UncheckedIOException when the directory cannot be used, for instance because another process holds it
   */
  public static PersistedPositionIndex open(Path dir) {
    try {
      Files.createDirectories(dir);
      return new PersistedPositionIndex(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the position index directory " + dir, e);
    } catch (RocksDBException e) {
      throw new UncheckedIOException("cannot open the position index in " + dir + ": " + e.getMessage(),
          new IOException(e));
    }
  }

  /** Deletes the index in {@code dir} and opens an empty one there; closes this instance first. */
  public PersistedPositionIndex wiped() {
    close();
    deleteTree(dir);
    return open(dir);
  }

  /** What the entries reflect, or null when nothing was recorded (a new index, or one a failure made untrustworthy). */
  public Reflected reflected() {
    try {
      byte[] state = db.get(meta, STATE);
      if (state == null) {
        return null;
      }
      String[] parts = new String(state, StandardCharsets.UTF_8).split("\n"); // table id, version, newest, entries
      Map<String, AddFile> current = new HashMap<>();
      try (RocksIterator it = db.newIterator(currentFiles)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          AddFile a = (AddFile) ActionCodec.fromJson(new String(it.value(), StandardCharsets.UTF_8));
          current.put(a.path(), a);
        }
      }
      recordedFiles = new HashMap<>(current);
      size = Long.parseLong(parts[3]);
      return new Reflected(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]), current);
    } catch (RocksDBException e) {
      throw failure("read", e);
    }
  }

  /**
   * Records what the entries reflect (see {@link Reflected}): one atomic write of the files that changed since the last
   * record and of the versions.
   */
  public void record(String tableId, long version, long newest, Map<String, AddFile> current) {
    flushBulk();
    // Not synced: a crash of the machine loses a suffix of the log at most, never a record without the entries
    // written before it, and an older record is caught up from. A sync per commit cost a second under heavy I/O.
    try (WriteBatch batch = new WriteBatch()) {
      for (String path : recordedFiles.keySet()) {
        if (!current.containsKey(path)) {
          batch.delete(currentFiles, bytes(path));
        }
      }
      for (AddFile a : current.values()) {
        AddFile old = recordedFiles.get(a.path());
        if (old == null || !old.fileId().equals(a.fileId())) {
          batch.put(currentFiles, bytes(a.path()), bytes(ActionCodec.toJson(a.withDataChange(false))));
        }
      }
      batch.put(meta, STATE, bytes(tableId + "\n" + version + "\n" + newest + "\n" + size));
      db.write(plainWrites, batch);
      recordedFiles = new HashMap<>(current);
    } catch (RocksDBException e) {
      throw failure("record the table version of", e);
    }
  }

  /** Forgets what the entries reflect: the next start rebuilds them (after a failure left them half applied). */
  public void forget() {
    try {
      db.delete(meta, STATE);
    } catch (RocksDBException e) {
      throw failure("reset", e);
    }
  }

  /**
   * Starts a bulk load (a rebuild): puts go into large unlogged batches until the next {@link #record}, which flushes
   * them to disk before the record says they are complete.
   */
  public void beginBulk() {
    if (bulk == null) {
      bulk = new WriteBatch();
    }
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public int fileId(String path) {
    Integer id = idsByPath.get(path);
    if (id != null) {
      return id;
    }
    int next = files.size();
    try {
      // stored before any entry points at it: entries are never ahead of the ids they use
      db.put(fileIds, plainWrites, ByteBuffer.allocate(4).putInt(next).array(), bytes(path));
    } catch (RocksDBException e) {
      throw failure("add a file to", e);
    }
    files.add(path);
    idsByPath.put(path, next);
    return next;
  }

  @Override
  public String file(long location) {
    return files.get(PositionIndex.fileOf(location));
  }

  @Override
  public long get(byte[] identity) {
    flushBulk();
    try {
      byte[] v = db.get(entries, identity);
      return v == null ? -1 : ByteBuffer.wrap(v).getLong();
    } catch (RocksDBException e) {
      throw failure("read", e);
    }
  }

  @Override
  public void put(byte[] identity, long location) {
    byte[] value = ByteBuffer.allocate(8).putLong(location).array();
    try {
      if (bulk != null) {
        bulk.put(entries, identity, value); // a rebuild writes each identity once: the count needs no read
        size++;
        if (bulk.count() >= 50_000) {
          db.write(bulkWrites, bulk);
          bulk.clear();
        }
        return;
      }
      if (db.get(entries, identity) == null) {
        size++;
      }
      db.put(entries, plainWrites, identity, value);
    } catch (RocksDBException e) {
      throw failure("write", e);
    }
  }

  @Override
  public boolean remove(byte[] identity) {
    flushBulk();
    try {
      if (db.get(entries, identity) == null) {
        return false;
      }
      db.delete(entries, plainWrites, identity);
      size--;
      return true;
    } catch (RocksDBException e) {
      throw failure("write", e);
    }
  }

  /** The file paths on the heap; the entries live in RocksDB's files and its bounded block cache. */
  @Override
  public long bytes() {
    long b = 0;
    for (String f : files) {
      b += 64 + 2L * f.length();
    }
    return b;
  }

  /** Where the index lives. */
  public Path dir() {
    return dir;
  }

  @Override
  public void close() {
    try {
      flushBulk();
    } finally {
      handles.forEach(ColumnFamilyHandle::close);
      db.close();
      plainWrites.close();
      bulkWrites.close();
      dbOptions.close();
      cfOptions.close();
      cache.close();
    }
  }

  private void flushBulk() {
    if (bulk == null) {
      return;
    }
    try {
      db.write(bulkWrites, bulk);
      bulk.close();
      bulk = null;
      try (org.rocksdb.FlushOptions f = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
        db.flush(f, entries); // unlogged writes are durable only once flushed
      }
    } catch (RocksDBException e) {
      throw failure("write", e);
    }
  }

  private void loadFileIds() {
    try (RocksIterator it = db.newIterator(fileIds)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        int id = ByteBuffer.wrap(it.key()).getInt();
        String path = new String(it.value(), StandardCharsets.UTF_8);
        while (files.size() <= id) {
          files.add(null);
        }
        files.set(id, path);
        idsByPath.put(path, id);
      }
    }
  }

  private UncheckedIOException failure(String what, RocksDBException e) {
    return new UncheckedIOException("cannot " + what + " the position index in " + dir + ": " + e.getMessage(),
        new IOException(e));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the position index in " + dir, e);
    }
  }
}
