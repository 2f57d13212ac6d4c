package io.dimstream.service;

import io.dimstream.model.BusinessKey;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.stream.Stream;

/**
 * Each key's decoded events in arrival order, grouped by shard: in memory while they fit the budget, then the records
 * of every shard are spilled (line and bytes, in arrival order) to one file per partition of shards, to be decoded
 * again partition by partition, so the heap holds one partition's events at a time. Not thread-safe.
 */
final class SpillingArrivals implements AutoCloseable {
  /** Partitions of shards once spilled: the heap then holds about 1/16 of the events. */
  static final int PARTITIONS = 16;

  private final int shards;
  private final long budget;
  private final List<Map<BusinessKey, List<Arrival>>> groups;
  private long held;
  private Path dir;
  private DataOutputStream[] files;
  private long spilled;

  /** @param budget events held in memory before spilling */
  SpillingArrivals(int shards, long budget) {
    this.shards = shards;
    this.budget = budget;
    this.groups = newGroups(shards);
  }

  static List<Map<BusinessKey, List<Arrival>>> newGroups(int shards) {
    List<Map<BusinessKey, List<Arrival>>> g = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      g.add(new HashMap<>());
    }
    return g;
  }

  void add(int shard, Arrival a) {
    if (files != null) {
      write(shard, a.line(), a.value());
      return;
    }
    groups.get(shard).computeIfAbsent(a.event().key(), k -> new ArrayList<>(4)).add(a);
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

  /** The groups held in memory (only when nothing spilled); a shard's slot may be cleared once it is folded. */
  List<Map<BusinessKey, List<Arrival>>> inMemory() {
    return groups;
  }

  static int partitionOf(int shard) {
    return shard % PARTITIONS;
  }

  /** The spilled records of partition {@code p}, in arrival order; call after every {@link #add}. */
  Iterator<Backfill.Input> read(int p) {
    try {
      if (files[p] != null) {
        files[p].close();
        files[p] = null;
      }
      DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file(p)), 1 << 16));
      return new Iterator<>() {
        private Backfill.Input next = advance();

        private Backfill.Input advance() {
          try {
            long line = in.readLong();
            byte[] value = new byte[in.readInt()];
            in.readFully(value);
            return new Backfill.Input(line, value);
          } catch (EOFException e) {
            close(in);
            return null;
          } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the backfill spill file " + file(p), e);
          }
        }

        @Override
        public boolean hasNext() {
          return next != null;
        }

        @Override
        public Backfill.Input next() {
          if (next == null) {
            throw new NoSuchElementException();
          }
          Backfill.Input r = next;
          next = advance();
          return r;
        }
      };
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the backfill spill file " + file(p), e);
    }
  }

  private void spillAll() {
    try {
      dir = Files.createTempDirectory("dimstream-backfill-");
      files = new DataOutputStream[PARTITIONS];
      for (int p = 0; p < PARTITIONS; p++) {
        files[p] = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file(p)), 1 << 16));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the backfill spill files in " + dir, e);
    }
    for (int s = 0; s < shards; s++) {
      for (List<Arrival> arrivals : groups.get(s).values()) {
        for (Arrival a : arrivals) {
          write(s, a.line(), a.value());
        }
      }
      groups.set(s, null);
    }
    held = 0;
  }

  private void write(int shard, long line, byte[] value) {
    int p = partitionOf(shard);
    try {
      files[p].writeLong(line);
      files[p].writeInt(value.length);
      files[p].write(value);
      spilled++;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the backfill spill file " + file(p), e);
    }
  }

  private Path file(int p) {
    return dir.resolve("partition-" + p + ".bin");
  }

  private static void close(DataInputStream in) {
    try {
      in.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the backfill spill directory " + dir, e);
    }
  }
}
