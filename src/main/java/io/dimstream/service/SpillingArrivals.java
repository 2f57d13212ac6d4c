package io.dimstream.service;

import io.dimstream.codec.StateBinary;
import io.dimstream.model.BusinessKey;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
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
import java.util.stream.Stream;

/**
 * Each key's decoded events in arrival order, grouped by shard: in memory while they fit the budget, then every
 * event is spilled in its decoded binary form ({@link StateBinary}: key, event, line) to one file per partition of
 * shards, so the heap holds one partition's events at a time and nothing is decoded from JSON twice. The records'
 * bytes go to one value file, read back by offset only for the few events that become dead letters in the fold.
 * Not thread-safe.
 */
final class SpillingArrivals implements AutoCloseable {
  /** Partitions of shards once spilled: the heap then holds about 1/16 of the events. */
  static final int PARTITIONS = 16;

  /** A spilled event, still in its binary form, grouped by its key's bytes. */
  record Spilled(long line, long valueAt, byte[] event) {}

  private final int shards;
  private final long budget;
  private final StateBinary binary;
  private final List<Map<Object, List<Arrival>>> groups;
  private long held;
  private Path dir;
  private DataOutputStream[] files;
  private DataOutputStream values;
  private long valuesAt;
  private FileChannel valuesIn;
  private long spilled;
  private long spilledBytes;

  /** @param budget events held in memory before spilling */
  SpillingArrivals(int shards, long budget, StateBinary binary) {
    this.shards = shards;
    this.budget = budget;
    this.binary = binary;
    this.groups = newGroups(shards);
  }

  static List<Map<Object, List<Arrival>>> newGroups(int shards) {
    List<Map<Object, List<Arrival>>> g = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      g.add(new HashMap<>());
    }
    return g;
  }

  void add(int shard, Arrival a) {
    if (files != null) {
      write(shard, a);
      return;
    }
    groups.get(shard).computeIfAbsent(groupKey(a.event().key()), k -> new ArrayList<>(4)).add(a);
    if (++held > budget) {
      spillAll();
    }
  }

  boolean spilled() {
    return files != null;
  }

  /** How many events went to disk. */
  long spilledEvents() {
    return spilled;
  }

  /** How many bytes went to disk: events and records. */
  long spilledBytes() {
    return spilledBytes + valuesAt;
  }

  /** The groups held in memory (only when nothing spilled); a shard's slot may be cleared once it is folded. */
  List<Map<Object, List<Arrival>>> inMemory() {
    return groups;
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

  static int partitionOf(int shard) {
    return shard % PARTITIONS;
  }

  /**
   * The spilled events of partition {@code p}: per shard (empty maps for the shards of other partitions), each key's
   * events in arrival order, keyed by the key's {@link StateBinary#encodeKey} bytes. Call after every {@link #add}.
   */
  List<Map<ByteBuffer, List<Spilled>>> read(int p) {
    List<Map<ByteBuffer, List<Spilled>>> out = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      out.add(new HashMap<>());
    }
    try {
      if (files[p] != null) {
        files[p].close();
        files[p] = null;
      }
      try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file(p)), 1 << 16))) {
        while (true) {
          int shard;
          try {
            shard = in.readInt();
          } catch (EOFException end) {
            break;
          }
          long line = in.readLong();
          long valueAt = in.readLong();
          byte[] key = new byte[in.readInt()];
          in.readFully(key);
          byte[] event = new byte[in.readInt()];
          in.readFully(event);
          out.get(shard).computeIfAbsent(ByteBuffer.wrap(key), k -> new ArrayList<>(4))
              .add(new Spilled(line, valueAt, event));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the backfill spill file " + file(p), e);
    }
  }

  /** The record spilled at {@code at} of the value file; thread-safe once every partition is read. */
  synchronized byte[] value(long at) {
    try {
      if (valuesIn == null) {
        values.close();
        valuesIn = FileChannel.open(dir.resolve("values.bin"), StandardOpenOption.READ);
      }
      ByteBuffer len = readFully(ByteBuffer.allocate(4), at);
      return readFully(ByteBuffer.allocate(len.flip().getInt()), at + 4).array();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the backfill spill file " + dir.resolve("values.bin"), e);
    }
  }

  private ByteBuffer readFully(ByteBuffer b, long at) throws IOException {
    while (b.hasRemaining()) {
      if (valuesIn.read(b, at + b.position()) < 0) {
        throw new EOFException("the backfill spill file " + dir.resolve("values.bin") + " ends before byte " + at);
      }
    }
    return b;
  }

  private void spillAll() {
    try {
      dir = Files.createTempDirectory("dimstream-backfill-");
      files = new DataOutputStream[PARTITIONS];
      for (int p = 0; p < PARTITIONS; p++) {
        files[p] = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file(p)), 1 << 16));
      }
      values = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(dir.resolve("values.bin")),
          1 << 16));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the backfill spill files in " + dir, e);
    }
    for (int s = 0; s < shards; s++) {
      for (List<Arrival> arrivals : groups.get(s).values()) {
        for (Arrival a : arrivals) {
          write(s, a);
        }
      }
      groups.set(s, null);
    }
    held = 0;
  }

  private void write(int shard, Arrival a) {
    int p = partitionOf(shard);
    byte[] key = binary.encodeKey(a.event().key());
    byte[] event = binary.encodeEvent(a.event());
    try {
      long at = valuesAt;
      values.writeInt(a.value().length);
      values.write(a.value());
      valuesAt += 4 + a.value().length;
      DataOutputStream f = files[p];
      f.writeInt(shard);
      f.writeLong(a.line());
      f.writeLong(at);
      f.writeInt(key.length);
      f.write(key);
      f.writeInt(event.length);
      f.write(event);
      spilledBytes += 28 + key.length + event.length;
      spilled++;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the backfill spill file " + file(p), e);
    }
  }

  private Path file(int p) {
    return dir.resolve("partition-" + p + ".bin");
  }

  @Override
  public void close() {
    if (dir == null) {
      return;
    }
    for (DataOutputStream f : files) {
      if (f != null) {
        try {
          f.close();
        } catch (IOException ignored) {
          // deleted below either way
        }
      }
    }
    try {
      values.close();
      if (valuesIn != null) {
        valuesIn.close();
      }
    } catch (IOException ignored) {
      // deleted below either way
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the backfill spill directory " + dir, e);
    }
  }
}
