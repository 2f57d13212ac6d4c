package io.dimstream.table;

import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.ToLongFunction;

/**
 * The event store's writes as the compactor applied them, kept beside the table under {@value #DIR}: one file per
 * commit that carried event records ({@link io.dimstream.model.EventRecords}), one per {@code apply-snapshot}, the parts
 * of a takeover's {@link Base}, and files merged from runs of small ones ({@link #mergeSmall}), named so that files sort
 * in the order they were written ({@code <table version the writer knew>-<time>-<part>-<id>}). Each file holds
 * segments (a {@code txn} appId, first and last offset: a versions-topic partition, a snapshot, a base) and the
 * records of each, with their offsets.
 *
 * <p>A segment counts once the table records its last offset under its appId: the file is written before the commit
 * whose markers cover it, so the table never holds rows whose events the archive lacks. A file of a commit that failed
 * holds the same records as the one that later succeeded (the versions topic is immutable at an offset); a reader
 * applies each offset of an appId once, the first time it meets it, so such duplicates change nothing. Directories
 * starting with {@code _} are invisible to Delta readers and to vacuum.
 */
public final class EventArchive {
  /** Where the files are, relative to the table root. */
  public static final String DIR = "_dimstream/events/";
  private static final int MAGIC = 0x44534556; // "DSEV"

  private EventArchive() {}

  /** One event-store write read from the versions topic at {@code offset} of the partition {@code appId} names. */
  public record Entry(String appId, long offset, byte[] key, byte[] value) {}

  /** A file's records of one partition: {@code appId}, its first and last offset. */
  record Segment(String appId, long first, long last) {}

  /**
   * Writes {@code entries} (in offset order per appId) as one file; nothing when there are none.
   *
   * @param tableVersion the table version the writer knows before the commit that covers them, which orders the file
   * @return the file's key, or null when nothing was written
   */
  public static String write(ObjectStore store, long tableVersion, List<Entry> entries) throws IOException {
    if (entries.isEmpty()) {
      return null;
    }
    Map<String, long[]> ranges = new LinkedHashMap<>();
    for (Entry e : entries) {
      ranges.merge(e.appId(), new long[] {e.offset(), e.offset()},
          (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
    }
    List<Segment> segments = new ArrayList<>();
    ranges.forEach((appId, r) -> segments.add(new Segment(appId, r[0], r[1])));
    String key = name(tableVersion, System.currentTimeMillis(), 0, UUID.randomUUID().toString());
    store.put(key, encode(segments, entries));
    return key;
  }

  private static String name(long tableVersion, long millis, int part, String id) {
    return DIR + String.format(Locale.ROOT, "%020d-%013d-%06d-%s.events", tableVersion, millis, part, id);
  }

  private static byte[] encode(List<Segment> segments, List<Entry> entries) throws IOException {
    Map<String, Integer> index = new HashMap<>();
    segments.forEach(seg -> index.put(seg.appId(), index.size()));
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(buffer)) {
      writeHeader(out, segments);
      for (Entry e : entries) {
        writeEntry(out, index.get(e.appId()), e.offset(), e.key(), e.value());
      }
    }
    return buffer.toByteArray();
  }

  private static void writeHeader(DataOutputStream out, List<Segment> segments) throws IOException {
    out.writeInt(MAGIC);
    out.writeInt(segments.size());
    for (Segment segment : segments) {
      out.writeUTF(segment.appId());
      out.writeLong(segment.first());
      out.writeLong(segment.last());
    }
  }

  private static void writeEntry(DataOutputStream out, int segment, long offset, byte[] key, byte[] value)
      throws IOException {
    out.writeInt(segment);
    out.writeLong(offset);
    out.writeInt(key.length);
    out.write(key);
    out.writeInt(value == null ? -1 : value.length);
    if (value != null) {
      out.write(value);
    }
  }

  /**
   * The whole event store as a takeover wrote it to a new changelog: its records in order, in files of at most
   * {@value #BASE_PART_BYTES} bytes, under the appId {@link #appId()}. They count once the table records that appId
   * at {@code tableVersion} (in the takeover's last commit), and from then on every file before them is redundant:
   * the base holds what replaying those gave ({@link #deleteEarlier}). Not thread-safe.
   */
  public static final class Base {
    static final int BASE_PART_BYTES = 32 << 20;
    private final ObjectStore store;
    private final String id = UUID.randomUUID().toString();
    private final String appId;
    private final long tableVersion;
    private final long millis = System.currentTimeMillis();
    private final List<String> written = new ArrayList<>();
    /** The part being written: straight to a local staging file, so no part is ever held on the heap. */
    private DataOutputStream part;
    private java.nio.file.Path staged;
    private String partKey;
    private long bytes;
    private long offset;

    /** A base of the table version {@code tableVersion}, for the dimension {@code dimension}. */
    public Base(ObjectStore store, String dimension, long tableVersion) {
      this.store = store;
      this.appId = dimension + "-event-base-" + id;
      this.tableVersion = tableVersion;
    }

    /** The {@code txn} appId the table must record at the base's table version for this base to count. */
    public String appId() {
      return appId;
    }

    /**
     * Deletes the files written before this base, once the table records it: replaying them gives what the base
     * holds. Returns how many were deleted.
     */
    public int deleteEarlier() throws IOException {
      if (written.isEmpty()) {
        return 0;
      }
      int deleted = 0;
      for (ObjectInfo o : files(store)) {
        if (o.key().compareTo(written.get(0)) < 0) {
          store.delete(o.key());
          deleted++;
        }
      }
      return deleted;
    }

    public void add(byte[] key, byte[] value) throws IOException {
      if (part == null) {
        partKey = name(tableVersion, millis, written.size(), id);
        staged = store.stagingFile(partKey);
        part = new DataOutputStream(new java.io.BufferedOutputStream(java.nio.file.Files.newOutputStream(staged),
            1 << 16));
        writeHeader(part, List.of(new Segment(appId, 0, tableVersion)));
        bytes = 0;
      }
      writeEntry(part, 0, offset++, key, value);
      bytes += 24 + key.length + (value == null ? 0 : value.length);
      if (bytes >= BASE_PART_BYTES) {
        flush();
      }
    }

    /** Writes the last part; the base counts once the table records its appId at its table version. */
    public void finish() throws IOException {
      flush();
    }

    /** Records added so far. */
    public long records() {
      return offset;
    }

    /** Deletes the parts written (the takeover failed), those that exist, and the part being written. */
    public void abort() {
      if (part != null) {
        try {
          part.close();
          java.nio.file.Files.deleteIfExists(staged);
        } catch (IOException e) {
          // a staging file left behind is the store's temporary file: never read as a part
        }
        part = null;
      }
      for (String key : written) {
        try {
          store.delete(key);
        } catch (IOException e) {
          // a part of a base the table never records is never read; it only takes space
        }
      }
    }

    private void flush() throws IOException {
      if (part == null) {
        return;
      }
      part.close();
      part = null;
      store.putFile(partKey, staged);
      written.add(partKey);
    }
  }

  /** What {@link #forEach} applied: files read, entries applied, entries skipped (not committed, or seen before). */
  public record Replayed(int files, long applied, long skipped) {}

  /** Receives the archive's entries in the order the event store took them. */
  @FunctionalInterface
  public interface Action {
    void accept(Entry entry) throws IOException;
  }

  /**
   * Calls {@code action} with every entry the table covers, in the order the event store took them: files in name
   * order, entries in file order, each offset of an appId once.
   *
   * @param recorded the last offset the table records for an appId, -1 for none (a snapshot's {@code txnVersion})
   */
  public static Replayed forEach(ObjectStore store, ToLongFunction<String> recorded, Action action)
      throws IOException {
    return forEach(store, files(store), recorded, action);
  }

  /** As {@link #forEach(ObjectStore, ToLongFunction, Action)}, over {@code files} (from {@link #files}) only. */
  public static Replayed forEach(ObjectStore store, List<ObjectInfo> files, ToLongFunction<String> recorded,
      Action action) throws IOException {
    Map<String, Long> applied = new HashMap<>();
    long[] counts = new long[2];
    for (ObjectInfo file : files) {
      read(store, file.key(), (segment, e) -> {
        if (recorded.applyAsLong(segment.appId()) < segment.last()
            || e.offset() <= applied.getOrDefault(segment.appId(), -1L)) {
          counts[1]++;
          return;
        }
        applied.put(segment.appId(), e.offset());
        action.accept(e);
        counts[0]++;
      });
    }
    return new Replayed(files.size(), counts[0], counts[1]);
  }

  /** Receives one file's entries with their segment. */
  @FunctionalInterface
  private interface EntryVisitor {
    void visit(Segment segment, Entry entry) throws IOException;
  }

  /** Reads {@code key}'s entries in order, one at a time: a file's entries are never all on the heap at once. */
  private static List<Segment> read(ObjectStore store, String key, EntryVisitor visitor) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(store.read(key)))) {
      if (in.readInt() != MAGIC) {
        throw new IOException(store.describe(key) + " is not an event archive file of this release");
      }
      Segment[] segments = new Segment[in.readInt()];
      for (int i = 0; i < segments.length; i++) {
        segments[i] = new Segment(in.readUTF(), in.readLong(), in.readLong());
      }
      while (true) {
        int s;
        try {
          s = in.readInt();
        } catch (EOFException end) {
          break;
        }
        long offset = in.readLong();
        byte[] k = in.readNBytes(in.readInt());
        int n = in.readInt();
        visitor.visit(segments[s], new Entry(segments[s].appId(), offset, k, n < 0 ? null : in.readNBytes(n)));
      }
      return List.of(segments);
    }
  }

  /** What {@link #mergeSmall} did: files merged into one, entries kept, entries dropped (superseded, or read twice). */
  public record Merged(int files, long kept, long dropped) {
    static final Merged NONE = new Merged(0, 0, 0);
  }

  /** Merge once this many small files follow one another. */
  public static final int MERGE_AT_FILES = 100;
  /** A file this large or larger is not merged again; a merge reads at most this many bytes. */
  static final long MERGE_MAX_BYTES = 64L << 20;

  /**
   * Merges the first run of at least {@value #MERGE_AT_FILES} consecutive small files, all of whose segments the
   * table covers, into one file at their place in the order: the entries in the same order, each offset of an appId
   * once, and of several writes of one store key the last alone (replaying the merged file gives what replaying the
   * run gave). Then deletes the run; a crash in between leaves both, which replay alike. Keeps the number of files a
   * long-running service leaves beside the table bounded by the events it keeps, not by its commits.
   *
   * @param recorded the last offset the table records for an appId, -1 for none
   */
  public static Merged mergeSmall(ObjectStore store, ToLongFunction<String> recorded) throws IOException {
    List<ObjectInfo> run = new ArrayList<>();
    long bytes = 0;
    for (ObjectInfo f : files(store)) {
      boolean small = f.size() < MERGE_MAX_BYTES / 4;
      if (small && bytes + f.size() <= MERGE_MAX_BYTES) {
        run.add(f);
        bytes += f.size();
        continue;
      }
      if (run.size() >= MERGE_AT_FILES) {
        break;
      }
      run.clear();
      bytes = 0;
      if (small) {
        run.add(f);
        bytes = f.size();
      }
    }
    if (run.size() < MERGE_AT_FILES) {
      return Merged.NONE;
    }
    List<Segment> segments = new ArrayList<>();
    Map<String, Integer> segmentOf = new HashMap<>();
    List<Entry> entries = new ArrayList<>();
    Map<String, Long> applied = new HashMap<>();
    long dropped = 0;
    for (ObjectInfo f : run) {
      Parsed parsed = parse(store, f.key());
      for (Segment seg : parsed.segments()) {
        if (recorded.applyAsLong(seg.appId()) < seg.last()) {
          return Merged.NONE; // a commit may still cover it (another compactor's, under way): leave the run as is
        }
        Integer i = segmentOf.get(seg.appId());
        if (i == null) {
          segmentOf.put(seg.appId(), segments.size());
          segments.add(seg);
        } else {
          Segment had = segments.get(i);
          segments.set(i, new Segment(had.appId(), Math.min(had.first(), seg.first()), Math.max(had.last(), seg.last())));
        }
      }
      for (Entry e : parsed.entries()) {
        if (e.offset() <= applied.getOrDefault(e.appId(), -1L)) {
          dropped++;
          continue;
        }
        applied.put(e.appId(), e.offset());
        entries.add(e);
      }
    }
    // of several writes of one store key, the last decides what a replay leaves: keep it alone
    Map<java.nio.ByteBuffer, Integer> last = new HashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      last.put(java.nio.ByteBuffer.wrap(entries.get(i).key()), i);
    }
    List<Entry> kept = new ArrayList<>(last.size());
    for (int i = 0; i < entries.size(); i++) {
      if (last.get(java.nio.ByteBuffer.wrap(entries.get(i).key())) == i) {
        kept.add(entries.get(i));
      } else {
        dropped++;
      }
    }
    String lastName = run.get(run.size() - 1).key();
    // sorts right after the last file of the run and before the file that follows it
    store.put(lastName.substring(0, lastName.length() - ".events".length()) + "-m.events", encode(segments, kept));
    for (ObjectInfo f : run) {
      store.delete(f.key());
    }
    return new Merged(run.size(), kept.size(), dropped);
  }

  private record Parsed(List<Segment> segments, List<Entry> entries) {}

  private static Parsed parse(ObjectStore store, String key) throws IOException {
    List<Entry> entries = new ArrayList<>();
    List<Segment> segments = read(store, key, (segment, e) -> entries.add(e));
    return new Parsed(segments, entries);
  }

  /** The archive's files in the order they were written. */
  public static List<ObjectInfo> files(ObjectStore store) throws IOException {
    List<ObjectInfo> out = new ArrayList<>();
    for (ObjectInfo o : store.list(DIR, null)) {
      if (o.key().endsWith(".events")) {
        out.add(o);
      }
    }
    out.sort(java.util.Comparator.comparing(ObjectInfo::key));
    return out;
  }
}
