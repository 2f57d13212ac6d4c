package io.dimstream.batch;

import io.dimstream.codec.ByteWriter;
import io.dimstream.codec.StateBinary;
import io.dimstream.model.BusinessKey;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The decoded events of the backfill input, in partitions of shards, each partition's events in arrival order in
 * their binary form ({@link StateBinary}: shard, line, key, event, then the record, which only a dead letter of the
 * fold reads back). Decode threads encode their chunks ({@link #encode}); the reading thread appends the bytes: in
 * memory, as a few large byte arrays per partition that the garbage collector never has to trace (millions of
 * decoded event objects held instead cost more in GC than the backfill's own work), until the bytes held exceed the
 * budget; then the highest-numbered resident partitions spill, as few as bring the bytes held back under three
 * quarters of the budget, and take every later event of theirs on disk (hybrid hashing: an input a little over the
 * budget spills a little). Partitions are read back independently, on as many threads as fold them. {@link #add}
 * and {@link #finishWriting} are called from one thread. Without {@code keepRecords} an event's record is not held
 * at all (its length is written as -1): the caller can read it again from its input, which a dead letter of the
 * fold needs and nothing else does; held bytes then are about 40 % of what they are with the records.
 */
final class SpillingArrivals implements AutoCloseable {
  /** At most this many partitions: each then holds about 1/64 of the events, read back one per thread. */
  static final int MAX_PARTITIONS = 64;

  /** An event read back, still in its binary form; its record is at {@code valueAt} of its partition. */
  record Spilled(long line, long valueAt, byte[] event) {}

  /**
   * A chunk's events encoded on a decode thread: each partition's records in arrival order (null when none), and
   * how many events each holds.
   */
  record Block(byte[][] partitions, int[] events) {}

  private final int shards;
  private final int partitions;
  private final long budget;
  private final StateBinary binary;
  private final boolean keepRecords;
  /** Each resident partition's bytes, in order; null once spilled or read. */
  private final List<List<byte[]>> held;
  private final long[] heldPerPartition;
  private long heldBytes;
  /** Partitions {@code [partitions - spilledPartitions, partitions)} are on disk; only grows. */
  private int spilledPartitions;
  private Path dir;
  private OutputStream[] files;
  private long spilledEvents;
  private long spilledBytes;
  private final long[] eventsPerPartition;
  /** A resident partition's bytes once read, kept for the records of its dead letters until {@link #release}. */
  private final Map<Integer, List<byte[]>> residentValues = new ConcurrentHashMap<>();

  /**
   * @param budget      bytes of encoded events held in memory before spilling
   * @param keepRecords whether each event's record is held with it ({@link #value} reads it back); without, a
   *                    read-back event's {@code valueAt} is -1
   */
  SpillingArrivals(int shards, long budget, StateBinary binary, boolean keepRecords) {
    this.shards = shards;
    this.keepRecords = keepRecords;
    this.partitions = Math.min(shards, MAX_PARTITIONS);
    this.budget = budget;
    this.binary = binary;
    this.held = new ArrayList<>(partitions);
    for (int i = 0; i < partitions; i++) {
      held.add(new ArrayList<>());
    }
    this.heldPerPartition = new long[partitions];
    this.eventsPerPartition = new long[partitions];
  }

  /** Adds the events of a chunk {@link #encode}d on a decode thread, after every event added before. */
  void add(Block block) {
    for (int p = 0; p < partitions; p++) {
      byte[] b = block.partitions()[p];
      if (b == null) {
        continue;
      }
      if (isSpilled(p)) {
        try {
          files[p].write(b);
        } catch (IOException e) {
          throw cannotWrite(p, e);
        }
        spilledBytes += b.length;
        spilledEvents += block.events()[p];
      } else {
        held.get(p).add(b);
        heldPerPartition[p] += b.length;
        heldBytes += b.length;
      }
    }
    for (int p = 0; p < partitions; p++) {
      eventsPerPartition[p] += block.events()[p];
    }
    if (heldBytes > budget) {
      spillHeld();
    }
  }

  /** Encodes the events of {@code arrivals} (with their shards) for {@link #add(Block)}; thread-safe. */
  Block encode(List<Arrival> arrivals, int[] shardOf) {
    ByteWriter[] out = new ByteWriter[partitions];
    int[] events = new int[partitions];
    // a chunk spreads evenly over the partitions: one buffer each, sized to need no growth for most chunks
    int perPartition = arrivals.size() / partitions + 1;
    for (int i = 0; i < arrivals.size(); i++) {
      int p = partitionOf(shardOf[i]);
      if (out[p] == null) {
        out[p] = new ByteWriter(perPartition * (keepRecords ? 256 : 128));
      }
      writeRecord(out[p], shardOf[i], arrivals.get(i));
      events[p]++;
    }
    byte[][] bytes = new byte[partitions][];
    for (int p = 0; p < partitions; p++) {
      bytes[p] = out[p] == null ? null : out[p].bytes();
    }
    return new Block(bytes, events);
  }

  /** Whether any partition went to disk; once true, stays true. */
  boolean spilled() {
    return spilledPartitions > 0;
  }

  /** Whether partition {@code p}'s events are on disk; once true, stays true. */
  boolean isSpilled(int p) {
    return p >= partitions - spilledPartitions;
  }

  /** How many partitions went to disk. */
  int spilledPartitions() {
    return spilledPartitions;
  }

  /** How many events went to disk. */
  long spilledEvents() {
    return spilledEvents;
  }

  /** How many bytes went to disk: events and records. */
  long spilledBytes() {
    return spilledBytes;
  }

  /** How many partitions {@link #read} takes. */
  int partitions() {
    return partitions;
  }

  /**
   * What events are grouped by: a one-column key's value itself (a {@code Long} or a {@code String}, which hash and
   * compare directly; the {@link BusinessKey} record hashes and compares through two list wrappers), else the key.
   * Equal keys, equal group keys.
   */
  static Object groupKey(BusinessKey key) {
    List<Object> values = key.values();
    return values.size() == 1 ? values.get(0) : key;
  }

  int partitionOf(int shard) {
    return shard % partitions;
  }

  /** Closes the partition files after the last {@link #add}; then partitions can be {@link #read}. */
  void finishWriting() {
    if (files == null) {
      return;
    }
    for (int p = partitions - spilledPartitions; p < partitions; p++) {
      try {
        files[p].close();
      } catch (IOException e) {
        throw cannotWrite(p, e);
      }
    }
  }

  /**
   * The events of partition {@code p}: per shard (empty maps for the shards of other partitions), each key's events
   * in arrival order, keyed by the key's {@link StateBinary#encodeKey} bytes. A resident partition's bytes are
   * released, so call it once per partition; thread-safe for distinct partitions, after {@link #finishWriting}.
   */
  List<Map<ByteBuffer, List<Spilled>>> read(int p) {
    List<Map<ByteBuffer, List<Spilled>>> out = new ArrayList<>(shards);
    int expected = (int) Math.min(Integer.MAX_VALUE / 2, eventsPerPartition[p] * partitions / Math.max(1, shards));
    for (int i = 0; i < shards; i++) {
      out.add(partitionOf(i) == p ? new HashMap<>(Math.max(16, expected / 2)) : Map.of());
    }
    long at = 0;
    for (InputStream stream : open(p)) {
      try (DataInputStream in = new DataInputStream(stream)) {
        at = readRecords(in, at, out);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read the backfill spill file " + file(p), e);
      }
    }
    return out;
  }

  /**
   * Reads records until {@code in} ends into their shards' key groups; {@code at} is where {@code in} starts in its
   * partition (records are found by that position); returns where it ends.
   */
  private static long readRecords(DataInputStream in, long at, List<Map<ByteBuffer, List<Spilled>>> out)
      throws IOException {
    while (true) {
      int shard;
      try {
        shard = in.readInt();
      } catch (EOFException end) {
        return at;
      }
      long line = in.readLong();
      byte[] key = new byte[in.readInt()];
      in.readFully(key);
      byte[] event = new byte[in.readInt()];
      in.readFully(event);
      int valueLength = in.readInt();
      at += 4 + 8 + 4 + key.length + 4 + event.length + 4;
      long valueAt = valueLength < 0 ? -1 : at;
      if (valueLength > 0) {
        in.skipNBytes(valueLength);
        at += valueLength;
      }
      out.get(shard).computeIfAbsent(ByteBuffer.wrap(key), k -> new ArrayList<>(4))
          .add(new Spilled(line, valueAt, event));
    }
  }

  /**
   * A partition's bytes: its file, or its blocks in memory, one stream each (then released: the fold is their last
   * reader). Every block holds whole records.
   */
  private List<InputStream> open(int p) {
    if (isSpilled(p)) {
      try {
        return List.of(new BufferedInputStream(Files.newInputStream(file(p)), 1 << 16));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read the backfill spill file " + file(p), e);
      }
    }
    List<byte[]> blocks = held.get(p);
    held.set(p, null);
    List<InputStream> streams = new ArrayList<>(blocks.size());
    blocks.forEach(b -> streams.add(new ByteArrayInputStream(b)));
    residentValues.put(p, blocks);
    return streams;
  }

  /** The record of the event of partition {@code p} with {@code valueAt}; thread-safe. */
  byte[] value(int p, long valueAt) {
    if (!isSpilled(p)) {
      return residentValue(p, valueAt);
    }
    try (FileChannel in = FileChannel.open(file(p), StandardOpenOption.READ)) {
      ByteBuffer len = readFully(in, ByteBuffer.allocate(4), valueAt - 4, p);
      return readFully(in, ByteBuffer.allocate(len.flip().getInt()), valueAt, p).array();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the backfill spill file " + file(p), e);
    }
  }

  /** A record held in memory: the blocks of a partition concatenate to what its file would hold. */
  private byte[] residentValue(int p, long valueAt) {
    long start = 0;
    for (byte[] b : residentValues.get(p)) {
      if (valueAt < start + b.length) { // a block holds whole records: the length and the record are both in it
        int at = (int) (valueAt - start);
        int length = ByteBuffer.wrap(b, at - 4, 4).getInt();
        return Arrays.copyOfRange(b, at, at + length);
      }
      start += b.length;
    }
    throw new IllegalStateException("no record at byte " + valueAt + " of backfill partition " + p);
  }

  /** Frees a resident partition's bytes once its dead letters have their records. */
  void release(int p) {
    residentValues.remove(p);
  }

  private ByteBuffer readFully(FileChannel in, ByteBuffer b, long at, int p) throws IOException {
    while (b.hasRemaining()) {
      if (in.read(b, at + b.position()) < 0) {
        throw new EOFException("the backfill spill file " + file(p) + " ends before byte " + at);
      }
    }
    return b;
  }

  /**
   * Spills the highest-numbered resident partitions, as few as bring the bytes held under three quarters of the
   * budget (so that a spill is not needed again at the next chunk): their bytes so far, then every later block.
   */
  private void spillHeld() {
    int from = partitions - spilledPartitions;
    int to = from;
    long keep = heldBytes;
    while (to > 0 && keep > budget * 3 / 4) {
      to--;
      keep -= heldPerPartition[to];
    }
    try {
      if (dir == null) {
        dir = Files.createTempDirectory("dimstream-backfill-");
        files = new OutputStream[partitions];
      }
      for (int p = to; p < from; p++) {
        files[p] = new BufferedOutputStream(Files.newOutputStream(file(p)), 1 << 16);
        for (byte[] b : held.get(p)) {
          files[p].write(b);
        }
        held.set(p, null);
        spilledBytes += heldPerPartition[p];
        spilledEvents += eventsPerPartition[p];
        heldPerPartition[p] = 0;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the backfill spill files in " + dir, e);
    }
    heldBytes = keep;
    spilledPartitions = partitions - to;
  }

  /**
   * One record: shard, line, key, event, then the record's bytes (read back only for a dead letter), or -1 for its
   * length when records are not kept. Big-endian, as {@link DataInputStream} reads it back.
   */
  private void writeRecord(ByteWriter out, int shard, Arrival a) {
    byte[] key = binary.encodeKey(a.event().key());
    byte[] event = binary.encodeEvent(a.event());
    out.fixed32(shard);
    out.fixed64(a.line());
    out.fixed32(key.length);
    out.write(key);
    out.fixed32(event.length);
    out.write(event);
    if (keepRecords) {
      out.fixed32(a.value().length);
      out.write(a.value());
    } else {
      out.fixed32(-1);
    }
  }

  private UncheckedIOException cannotWrite(int p, IOException e) {
    return new UncheckedIOException("Cannot write the backfill spill file " + file(p), e);
  }

  private Path file(int p) {
    return dir.resolve("partition-" + p + ".bin");
  }

  @Override
  public void close() {
    if (dir == null) {
      return;
    }
    for (OutputStream f : files) {
      try {
        if (f != null) {
          f.close();
        }
      } catch (IOException ignored) {
        // deleted below either way
      }
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the backfill spill directory " + dir, e);
    }
  }
}
