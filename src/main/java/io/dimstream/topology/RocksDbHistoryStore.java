package io.dimstream.topology;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.HistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A {@link HistoryStore} over the topology's event store (RocksDB in production): canonical key bytes
 * ({@link EventJson#keyBytes}) + sequence bytes → {@link StoredEvent} ({@link StateBinary} form; the older JSON form is
 * still read). Each sequence part is 8 big-endian bytes with the sign bit flipped, so byte order is sequence order and
 * one key's events are one contiguous range (canonical key bytes are prefix-free).
 *
 * <p>The key's current state is its newest stored event (its sequence, and the version open after it), read with one
 * reverse seek: the newest event is never pruned, and a re-fold rewrites its open version whenever it moves. So an
 * in-order event costs one read and one write, and {@link #putCurrent} writes nothing. Releases before this one also
 * kept a current-row store; it held the same facts and is no longer read. A {@link NewestStateCache} in front of the
 * seek keeps the newest states of recently used keys, updated on every write, so only a miss seeks.
 * Not thread-safe: one instance per stream task, like the store it wraps.
 */
public final class RocksDbHistoryStore implements HistoryStore {
  private final KeyValueStore<Bytes, byte[]> events;
  private final EventJson json;
  private final StateBinary state;
  private final int sequenceParts;
  private final NewestStateCache newest;
  private BusinessKey lastKey;
  private byte[] lastKeyBytes;
  /** The event key the next {@link #pruneSlice} starts at; null: the store's first. */
  private Bytes pruneFrom;
  /** Told of every write, after it is made. */
  private Writes writes = Writes.NONE;

  /** What a store tells of its writes: the canonical key bytes, the store key, and the value (null: deleted). */
  @FunctionalInterface
  interface Writes {
    Writes NONE = (keyBytes, storeKey, value) -> {};

    void written(byte[] keyBytes, byte[] storeKey, byte[] value);
  }

  public RocksDbHistoryStore(KeyValueStore<Bytes, byte[]> events, EventJson json, StateBinary state,
      int sequenceParts) {
    this(events, json, state, sequenceParts, NewestStateCache.DEFAULT_MAX_KEYS);
  }

  /** As above, caching the newest state of at most {@code maxCachedKeys} keys (0: every read seeks). */
  RocksDbHistoryStore(KeyValueStore<Bytes, byte[]> events, EventJson json, StateBinary state, int sequenceParts,
      int maxCachedKeys) {
    this.events = events;
    this.json = json;
    this.state = state;
    this.sequenceParts = sequenceParts;
    this.newest = new NewestStateCache(maxCachedKeys);
  }

  /** Tells {@code writes} of every write from now on (the processor sends each as an event record). */
  void tellWrites(Writes writes) {
    this.writes = writes;
  }

  /** Tells the store the canonical bytes of the key about to be used, so they are not rendered again. */
  void useKey(BusinessKey key, byte[] keyBytes) {
    lastKey = key;
    lastKeyBytes = keyBytes;
  }

  @Override
  public KeyState current(BusinessKey key) {
    KeyState cached = newest.lookup(key);
    if (cached != NewestStateCache.UNKNOWN) {
      return cached;
    }
    KeyState found = seekNewest(key);
    newest.read(key, found);
    return found;
  }

  /** The key's newest state as the store holds it: one reverse seek. */
  private KeyState seekNewest(BusinessKey key) {
    byte[] kb = keyBytes(key);
    try (KeyValueIterator<Bytes, byte[]> it = events.reverseRange(eventKey(kb, lowest()), eventKey(kb, highest()))) {
      if (!it.hasNext()) {
        return null;
      }
      StoredEvent stored = state.decodeStoredEvent(key, it.next().value);
      return new KeyState(stored.sequence(), stored.openAfter());
    }
  }

  /** Empties the newest-state cache; the processor calls it on close, so no cached state outlives its task. */
  void close() {
    newest.clear();
  }

  /**
   * Writes nothing: the engine has just stored the key's newest event with the same sequence and open version (see
   * the class comment), which is where {@link #current} reads them.
   */
  @Override
  public void putCurrent(BusinessKey key, KeyState keyState) {}

  /**
   * Calls {@code action} with the canonical key bytes and current state of every key in the store, in key byte order.
   * {@code action} must not write to this store.
   */
  void forEachKey(BiConsumer<byte[], KeyState> action) {
    byte[] prevKey = null;
    byte[] prevValue = null;
    try (KeyValueIterator<Bytes, byte[]> it = events.all()) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> kv = it.next();
        byte[] kb = keyPart(kv.key.get());
        if (prevKey != null && !Arrays.equals(prevKey, kb)) {
          emit(action, prevKey, prevValue);
        }
        prevKey = kb;
        prevValue = kv.value;
      }
    }
    if (prevKey != null) {
      emit(action, prevKey, prevValue);
    }
  }

  private void emit(BiConsumer<byte[], KeyState> action, byte[] keyBytes, byte[] newestValue) {
    StoredEvent newest = state.decodeStoredEvent(json.key(keyBytes), newestValue);
    action.accept(keyBytes, new KeyState(newest.sequence(), newest.openAfter()));
  }

  /**
   * Applies the pruning rule of {@link IncrementalHistory#pruneCutoff} to the next slice of the store: from where the
   * previous slice stopped, whole keys until at least {@code budget} stored events were looked at, then remembers where
   * to go on (after the last key, the next slice starts again at the first). Deletes the events whose first sequence
   * part is below the key's cutoff, except the newest of them (the anchor a late re-fold starts from). A slice bounds
   * the stream thread's pause: one pass over a store of tens of millions of events would stall it for seconds.
   *
   * @return how many events were deleted
   */
  long pruneSlice(IncrementalHistory history, int budget) {
    List<Bytes> doomed = new ArrayList<>();
    List<Bytes> keyEvents = new ArrayList<>();
    byte[] prevKey = null;
    int seen = 0;
    Bytes stoppedAt = null;
    try (KeyValueIterator<Bytes, byte[]> it = pruneFrom == null ? events.all() : events.range(pruneFrom, null)) {
      while (it.hasNext()) {
        Bytes k = it.next().key;
        byte[] kb = keyPart(k.get());
        if (prevKey != null && !Arrays.equals(prevKey, kb)) {
          collectPrunable(history, keyEvents, doomed);
          keyEvents.clear();
          if (seen >= budget) {
            stoppedAt = k; // the first event of a key this slice leaves for the next
            break;
          }
        }
        prevKey = kb;
        keyEvents.add(k);
        seen++;
      }
    }
    collectPrunable(history, keyEvents, doomed); // the last key before the store's end (empty after a break)
    pruneFrom = stoppedAt;
    for (Bytes k : doomed) { // after the scan: the iterator does not see its own store's deletes reliably
      events.delete(k);
      writes.written(keyPart(k.get()), k.get(), null);
    }
    // no key's newest event is ever doomed (collectPrunable keeps at least the anchor), so the cache stays exact
    return doomed.size();
  }

  /** Whether the next {@link #pruneSlice} starts a new pass at the store's first key. */
  boolean pruneAtStart() {
    return pruneFrom == null;
  }

  /** Adds to {@code doomed} the prunable events of one key, given all its event keys in sequence order. */
  private void collectPrunable(IncrementalHistory history, List<Bytes> keyEvents, List<Bytes> doomed) {
    if (keyEvents.isEmpty()) {
      return;
    }
    long newest = firstPart(keyEvents.get(keyEvents.size() - 1).get());
    long cutoff = history.pruneCutoff(new KeyState(Sequence.of(newest), null));
    if (cutoff == Long.MIN_VALUE) {
      return;
    }
    int below = 0;
    while (below < keyEvents.size() && firstPart(keyEvents.get(below).get()) < cutoff) {
      below++;
    }
    // the newest event below the cutoff stays as the re-fold anchor
    doomed.addAll(keyEvents.subList(0, Math.max(0, below - 1)));
  }

  /** The canonical key bytes of an event-store key. */
  private byte[] keyPart(byte[] eventKey) {
    return Arrays.copyOf(eventKey, eventKey.length - 8 * sequenceParts);
  }

  /** The first sequence part of an event-store key. */
  private long firstPart(byte[] eventKey) {
    return ByteBuffer.wrap(eventKey, eventKey.length - 8 * sequenceParts, 8).getLong() ^ Long.MIN_VALUE;
  }

  @Override
  public StoredEvent eventBefore(BusinessKey key, Sequence sequence) {
    byte[] kb = keyBytes(key);
    Bytes at = eventKey(kb, sequence);
    try (KeyValueIterator<Bytes, byte[]> it = events.reverseRange(eventKey(kb, lowest()), at)) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> kv = it.next();
        if (!kv.key.equals(at)) {
          return state.decodeStoredEvent(key, kv.value);
        }
      }
    }
    return null;
  }

  @Override
  public List<StoredEvent> eventsFrom(BusinessKey key, Sequence from) {
    byte[] kb = keyBytes(key);
    List<StoredEvent> out = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = events.range(eventKey(kb, from), eventKey(kb, highest()))) {
      while (it.hasNext()) {
        out.add(state.decodeStoredEvent(key, it.next().value));
      }
    }
    return out;
  }

  @Override
  public void putEvent(BusinessKey key, StoredEvent event) {
    byte[] kb = keyBytes(key);
    Bytes storeKey = eventKey(kb, event.sequence());
    byte[] value = state.encode(event, state.encodeVersion(event.openAfter()));
    events.put(storeKey, value);
    newest.written(key, event); // after the put: a write that throws leaves the cache as the store is
    writes.written(kb, storeKey.get(), value);
  }

  private byte[] keyBytes(BusinessKey key) {
    if (key != lastKey && !key.equals(lastKey)) {
      lastKey = key;
      lastKeyBytes = json.keyBytes(key);
    }
    return lastKeyBytes;
  }

  /** Canonical key bytes followed by the order-preserving bytes of the sequence. */
  static Bytes eventKey(byte[] keyBytes, Sequence s) {
    ByteBuffer b = ByteBuffer.allocate(keyBytes.length + 8 * s.size());
    b.put(keyBytes);
    for (int i = 0; i < s.size(); i++) {
      b.putLong(s.part(i) ^ Long.MIN_VALUE);
    }
    return Bytes.wrap(b.array());
  }

  private Sequence lowest() {
    long[] p = new long[sequenceParts];
    Arrays.fill(p, Long.MIN_VALUE);
    return Sequence.of(p);
  }

  private Sequence highest() {
    long[] p = new long[sequenceParts];
    Arrays.fill(p, Long.MAX_VALUE);
    return Sequence.of(p);
  }
}
