package io.dimstream.service;

import io.dimstream.codec.StateBinary;
import io.dimstream.model.BusinessKey;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * The decoded events of the backfill input, per shard in arrival order, in partitions of shards: each partition in
 * memory (a plain append per event; grouping by key is left to the parallel fold) until the events held exceed the
 * budget; then the highest-numbered resident partitions spill, as few as bring the events held back under three
 * quarters of the budget, and take every later event of theirs on disk (hybrid hashing: an input a little over the
 * budget spills a little). A spilled partition is one file: each event in its decoded binary form
 * ({@link StateBinary}: key, event) followed by its record, which only a dead letter of the fold reads back. Decode
 * threads encode the events of spilled partitions ({@link #encode}) so the reading thread only appends bytes;
 * partitions are read back independently, on as many threads as fold them. {@link #add} and
 * {@link #finishWriting} are called from one thread.
 */
final class SpillingArrivals implements AutoCloseable {
  /** At most this many partition files: each then holds about 1/64 of the events, read back one per thread. */
  static final int MAX_PARTITIONS = 64;

  /** A spilled event, still in its binary form; its record is at {@code valueAt} of its partition's file. */
  record Spilled(long line, long valueAt, byte[] event) {}

  /**
   * A chunk's events split on a decode thread: those of spilled partitions encoded, each partition's records in
   * arrival order (null when none), and the others as they were, with their shards.
   */
  record Block(ByteArrayOutputStream[] partitions, int events, List<Arrival> resident, int[] residentShards) {}

  private final int shards;
  private final int partitions;
  private final long budget;
  private final StateBinary binary;
  private final ExecutorService pool;
  private final List<List<Arrival>> held;
  private final long[] heldPerPartition;
  private long heldEvents;
  /** Partitions {@code [partitions - spilledPartitions, partitions)} are on disk; only grows. */
  private volatile int spilledPartitions;
  private Path dir;
  private OutputStream[] files;
  private long spilledEvents;
  private long spilledBytes;

  /**
   * @param budget events held in memory before spilling
   * @param pool   runs the first spill's partitions in parallel
   */
  SpillingArrivals(int shards, long budget, StateBinary binary, ExecutorService pool) {
    this.shards = shards;
    this.partitions = Math.min(shards, MAX_PARTITIONS);
    this.budget = budget;
    this.binary = binary;
    this.pool = pool;
    this.held = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      held.add(new ArrayList<>());
    }
    this.heldPerPartition = new long[partitions];
  }

  /** Adds one decoded event of {@code shard}, after every event that arrived before it. */
  void add(int shard, Arrival a) {
    int p = partitionOf(shard);
    if (isSpilled(p)) {
      try {
        write(files[p], shard, a);
      } catch (IOException e) {
        throw cannotWrite(p, e);
      }
      spilledEvents++;
      return;
    }
    held.get(shard).add(a);
    heldPerPartition[p]++;
    if (++heldEvents > budget) {
      spillHeld();
    }
  }

  /** Adds the events of a chunk {@link #encode}d on a decode thread, after every event added before. */
  void add(Block block) {
    for (int p = partitions - spilledPartitions; p < partitions; p++) {
      ByteArrayOutputStream b = block.partitions()[p];
      if (b != null) {
        try {
          b.writeTo(files[p]);
        } catch (IOException e) {
          throw cannotWrite(p, e);
        }
        spilledBytes += b.size();
      }
    }
    spilledEvents += block.events();
    for (int i = 0; i < block.resident().size(); i++) {
      add(block.residentShards()[i], block.resident().get(i));
    }
  }

  /**
   * Encodes the events of {@code arrivals} (with their shards) whose partitions are spilled, for
   * {@link #add(Block)}: thread-safe, so that decode threads do the encoding.
   */
  Block encode(List<Arrival> arrivals, int[] shardOf) {
    ByteArrayOutputStream[] out = new ByteArrayOutputStream[partitions];
    List<Arrival> resident = new ArrayList<>();
    int[] residentShards = new int[arrivals.size()];
    int firstSpilled = partitions - spilledPartitions;
    int encoded = 0;
    try {
      for (int i = 0; i < arrivals.size(); i++) {
        int p = partitionOf(shardOf[i]);
        if (p < firstSpilled) {
          residentShards[resident.size()] = shardOf[i];
          resident.add(arrivals.get(i));
          continue;
        }
        if (out[p] == null) {
          out[p] = new ByteArrayOutputStream(8192);
        }
        writeRecord(new DataOutputStream(out[p]), shardOf[i], arrivals.get(i));
        encoded++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return new Block(out, encoded, resident, residentShards);
  }

  /** Whether any partition went to disk; once true, stays true. Read from any thread. */
  boolean spilled() {
    return spilledPartitions > 0;
  }

  /** Whether partition {@code p}'s events go to disk; once true, stays true. Read from any thread. */
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

  /** How many partition files {@link #read} takes. */
  int partitions() {
    return partitions;
  }

  /** Each shard's events in arrival order (empty for the shards of spilled partitions); a slot may be cleared once folded. */
  List<List<Arrival>> inMemory() {
    return held;
  }

  /**
   * What events are grouped by: a one-column key's value itself (a {@code Long} or a {@code String}, which hash and
   * compare directly; the {@link BusinessKey} record hashes and compares through two list wrappers, a tenth of the
   * reading thread's time), else the key. Equal keys, equal group keys.
   */
  static Object groupKey(BusinessKey key) {
    List<Object> values = key.values();
    return values.size() == 1 ? values.get(0) : key;
  }

  int partitionOf(int shard) {
    return shard % partitions;
  }

  /** Closes the partition files after the last {@link #add}; then they can be {@link #read}. */
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
   * The spilled events of partition {@code p}: per shard (empty maps for the shards of other partitions), each key's
   * events in arrival order, keyed by the key's {@link StateBinary#encodeKey} bytes. Thread-safe for distinct
   * partitions, after {@link #finishWriting}.
   */
  List<Map<ByteBuffer, List<Spilled>>> read(int p) {
    List<Map<ByteBuffer, List<Spilled>>> out = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      out.add(partitionOf(i) == p ? new HashMap<>() : Map.of());
    }
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file(p)), 1 << 16))) {
      long at = 0;
      while (true) {
        int shard;
        try {
          shard = in.readInt();
        } catch (EOFException end) {
          break;
        }
        long line = in.readLong();
        byte[] key = new byte[in.readInt()];
        in.readFully(key);
        byte[] event = new byte[in.readInt()];
        in.readFully(event);
        int valueLength = in.readInt();
        at += 4 + 8 + 4 + key.length + 4 + event.length + 4;
        long valueAt = at;
        in.skipNBytes(valueLength);
        at += valueLength;
        out.get(shard).computeIfAbsent(ByteBuffer.wrap(key), k -> new ArrayList<>(4))
            .add(new Spilled(line, valueAt, event));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the backfill spill file " + file(p), e);
    }
  }

  /** The record of the event spilled to partition {@code p} with {@code valueAt}; thread-safe. */
  byte[] value(int p, long valueAt) {
    try (FileChannel in = FileChannel.open(file(p), StandardOpenOption.READ)) {
      ByteBuffer len = readFully(in, ByteBuffer.allocate(4), valueAt - 4, p);
      return readFully(in, ByteBuffer.allocate(len.flip().getInt()), valueAt, p).array();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the backfill spill file " + file(p), e);
    }
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
   * Spills the highest-numbered resident partitions, as few as bring the events held under three quarters of the
   * budget (so that a spill is not needed again at the next event), each partition written on a thread of the pool.
   */
  private void spillHeld() {
    int from = partitions - spilledPartitions;
    int to = from;
    long keep = heldEvents;
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
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the backfill spill files in " + dir, e);
    }
    List<Callable<Long>> tasks = new ArrayList<>(from - to);
    for (int p = to; p < from; p++) {
      int partition = p;
      tasks.add(() -> {
        DataOutputStream out = new DataOutputStream(files[partition]);
        for (int s = partition; s < shards; s += partitions) {
          for (Arrival a : held.get(s)) {
            writeRecord(out, s, a);
          }
          held.set(s, new ArrayList<>(0)); // written events free their memory while other partitions are written
        }
        return (long) out.size();
      });
    }
    try {
      for (Future<Long> f : pool.invokeAll(tasks)) {
        spilledBytes += f.get();
      }
    } catch (InterruptedException e) {
      throw BackfillTasks.interrupted(e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new UncheckedIOException("Cannot write the backfill spill files in " + dir,
          new IOException(e.getCause()));
    }
    spilledEvents += heldEvents - keep;
    heldEvents = keep;
    for (int p = to; p < from; p++) {
      heldPerPartition[p] = 0;
    }
    spilledPartitions = partitions - to;
  }

  private void write(OutputStream file, int shard, Arrival a) throws IOException {
    DataOutputStream out = new DataOutputStream(file);
    writeRecord(out, shard, a);
    spilledBytes += out.size();
  }

  /** One record: shard, line, key, event, then the record's bytes (read back only for a dead letter). */
  private void writeRecord(DataOutputStream out, int shard, Arrival a) throws IOException {
    byte[] key = binary.encodeKey(a.event().key());
    byte[] event = binary.encodeEvent(a.event());
    out.writeInt(shard);
    out.writeLong(a.line());
    out.writeInt(key.length);
    out.write(key);
    out.writeInt(event.length);
    out.write(event);
    out.writeInt(a.value().length);
    out.write(a.value());
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
