package io.dimstream.table.internal.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The position index on the heap: open addressing over primitive arrays with the identity bytes in one arena, so a
 * million keys cost tens of megabytes and no object per entry. Not thread safe.
 */
public final class HeapPositionIndex implements PositionIndex {
  private static final long EMPTY = 0;
  private static final long TOMBSTONE = -1;

  private long[] refs;
  private long[] locations;
  private int[] hashes;
  private byte[] arena;
  private int arenaSize;
  private int size;
  private int used;
  private final List<String> files = new ArrayList<>();
  private final Map<String, Integer> fileIds = new HashMap<>();

  public HeapPositionIndex() {
    this(1024);
  }

  public HeapPositionIndex(int expected) {
    int cap = Integer.highestOneBit(Math.max(16, (int) Math.min(1 << 30, expected * 10L / 7))) << 1;
    refs = new long[cap];
    locations = new long[cap];
    hashes = new int[cap];
    arena = new byte[Math.max(1024, expected * 24)];
  }

  /** Entries held. */
  @Override
  public long size() {
    return size;
  }

  /** The id of a data file path, assigned on first use. */
  @Override
  public int fileId(String path) {
    return fileIds.computeIfAbsent(path, p -> {
      files.add(p);
      return files.size() - 1;
    });
  }

  @Override
  public String file(long location) {
    return files.get(PositionIndex.fileOf(location));
  }

  /** The location of {@code identity}, or -1 when absent. */
  @Override
  public long get(byte[] identity) {
    int slot = find(identity, hash(identity));
    return slot < 0 || refs[slot] <= 0 ? -1 : locations[slot];
  }

  /** Sets the location of {@code identity}. */
  @Override
  public void put(byte[] identity, long location) {
    int h = hash(identity);
    int slot = find(identity, h);
    if (slot >= 0) {
      locations[slot] = location;
      return;
    }
    // the probe that missed already found the free slot: a second probe costs a cache miss per key at 10M keys
    slot = -1 - slot;
    if ((used + 1) * 10L >= refs.length * 7L) {
      rehash(size + 1);
      slot = freeSlot(h);
    }
    if (refs[slot] == EMPTY) {
      used++;
    }
    refs[slot] = store(identity);
    hashes[slot] = h;
    locations[slot] = location;
    size++;
  }

  /** Removes {@code identity}; returns whether it was there. */
  @Override
  public boolean remove(byte[] identity) {
    int slot = find(identity, hash(identity));
    if (slot < 0 || refs[slot] <= 0) {
      return false;
    }
    refs[slot] = TOMBSTONE;
    size--;
    return true;
  }

  /** Bytes held by the arrays and the arena (what the index costs in heap). */
  @Override
  public long bytes() {
    return refs.length * (8L + 8L + 4L) + arena.length;
  }

  /** The slot holding {@code identity}, else the first free slot of its probe sequence (as -1 - slot). */
  private int find(byte[] identity, int h) {
    int mask = refs.length - 1;
    int firstFree = -1;
    for (int i = h & mask; ; i = (i + 1) & mask) {
      long ref = refs[i];
      if (ref == EMPTY) {
        return firstFree >= 0 ? -1 - firstFree : -1 - i;
      }
      if (ref == TOMBSTONE) {
        if (firstFree < 0) {
          firstFree = i;
        }
      } else if (hashes[i] == h && equalsAt(ref, identity)) {
        return i;
      }
    }
  }

  private int freeSlot(int h) {
    int mask = refs.length - 1;
    for (int i = h & mask; ; i = (i + 1) & mask) {
      if (refs[i] == EMPTY || refs[i] == TOMBSTONE) {
        return i;
      }
    }
  }

  private boolean equalsAt(long ref, byte[] identity) {
    int at = (int) (ref - 1);
    int len = ((arena[at] & 0xFF) << 8) | (arena[at + 1] & 0xFF);
    return len == identity.length && Arrays.equals(arena, at + 2, at + 2 + len, identity, 0, len);
  }

  private long store(byte[] identity) {
    if (identity.length > 0xFFFF) {
      throw new IllegalArgumentException("a key of " + identity.length + " bytes is too long for the index");
    }
    if (arenaSize + 2 + identity.length > arena.length) {
      long grown = Math.max(arena.length * 3L / 2, arenaSize + 2L + identity.length);
      if (grown > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("the position index outgrew 2 GiB of keys");
      }
      arena = Arrays.copyOf(arena, (int) grown);
    }
    int at = arenaSize;
    arena[at] = (byte) (identity.length >>> 8);
    arena[at + 1] = (byte) identity.length;
    System.arraycopy(identity, 0, arena, at + 2, identity.length);
    arenaSize += 2 + identity.length;
    return at + 1L;
  }

  /** Grows (or cleans) the table and compacts the arena: removed identities leave garbage behind. */
  private void rehash(int needed) {
    long[] oldRefs = refs;
    long[] oldLocations = locations;
    int[] oldHashes = hashes;
    byte[] oldArena = arena;
    int cap = refs.length;
    while (needed * 2L > cap) {
      cap <<= 1;
    }
    refs = new long[cap];
    locations = new long[cap];
    hashes = new int[cap];
    arena = new byte[Math.max(1024, (int) Math.min(Integer.MAX_VALUE - 8, arenaSize + (long) arenaSize / 2))];
    arenaSize = 0;
    size = 0;
    used = 0;
    for (int i = 0; i < oldRefs.length; i++) {
      if (oldRefs[i] > 0) {
        int at = (int) (oldRefs[i] - 1);
        int len = ((oldArena[at] & 0xFF) << 8) | (oldArena[at + 1] & 0xFF);
        byte[] id = Arrays.copyOfRange(oldArena, at + 2, at + 2 + len);
        int slot = freeSlot(oldHashes[i]);
        refs[slot] = store(id);
        hashes[slot] = oldHashes[i];
        locations[slot] = oldLocations[i];
        size++;
        used++;
      }
    }
  }

  /** The identity's slot hash: the low bits of the same 64-bit hash the closed files' filters hold. */
  private static int hash(byte[] bytes) {
    return (int) IdentityFilter.fingerprint(bytes);
  }
}
