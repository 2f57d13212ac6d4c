package io.dimstream.topology;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.HistoryStore;
import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A {@link HistoryStore} over the topology's two key-value byte stores (RocksDB in production):
 * <ul>
 *   <li>current rows: canonical key bytes ({@link EventJson#keyBytes}) → {@link KeyState} ({@link StateBinary}
 *       form; the older JSON form is still read);</li>
 *   <li>events: canonical key bytes + sequence bytes → {@link StoredEvent} (likewise). Each sequence part is 8 big-endian
 *       bytes with the sign bit flipped, so byte order is sequence order and one key's events are one contiguous
 *       range (canonical key bytes are prefix-free).</li>
 * </ul>
 * Not thread-safe: one instance per stream task, like the stores it wraps.
 */
public final class RocksDbHistoryStore implements HistoryStore {
  private final KeyValueStore<Bytes, byte[]> current;
  private final KeyValueStore<Bytes, byte[]> events;
  private final EventJson json;
  private final StateBinary state;
  private final int sequenceParts;
  private BusinessKey lastKey;
  private byte[] lastKeyBytes;
  // The fast path stores one open version twice (after the event, and as the key's current row): encode it once.
  private Version lastVersion;
  private byte[] lastVersionBytes;

  public RocksDbHistoryStore(KeyValueStore<Bytes, byte[]> current, KeyValueStore<Bytes, byte[]> events,
      EventJson json, StateBinary state, int sequenceParts) {
    this.current = current;
    this.events = events;
    this.json = json;
    this.state = state;
    this.sequenceParts = sequenceParts;
  }

  /** Tells the store the canonical bytes of the key about to be used, so they are not rendered again. */
  void useKey(BusinessKey key, byte[] keyBytes) {
    lastKey = key;
    lastKeyBytes = keyBytes;
  }

  @Override
  public KeyState current(BusinessKey key) {
    byte[] v = current.get(Bytes.wrap(keyBytes(key)));
    return v == null ? null : state.decodeKeyState(key, v);
  }

  @Override
  public void putCurrent(BusinessKey key, KeyState keyState) {
    current.put(Bytes.wrap(keyBytes(key)), this.state.encode(keyState, versionBytes(keyState.open())));
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
    events.put(eventKey(keyBytes(key), event.sequence()), state.encode(event, versionBytes(event.openAfter())));
  }

  /**
   * Deletes the key's stored events whose first sequence part is below {@code cutoff}, except the newest of them
   * (the anchor a late re-fold starts from).
   *
   * @return how many events were deleted
   */
  int prune(byte[] keyBytes, long cutoff) {
    if (cutoff == Long.MIN_VALUE) {
      return 0;
    }
    long[] below = new long[sequenceParts];
    Arrays.fill(below, Long.MAX_VALUE);
    below[0] = cutoff - 1;
    List<Bytes> doomed = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = events.range(eventKey(keyBytes, lowest()),
        eventKey(keyBytes, Sequence.of(below)))) {
      while (it.hasNext()) {
        doomed.add(it.next().key);
      }
    }
    // the newest event below the cutoff stays as the re-fold anchor
    for (int i = 0; i < doomed.size() - 1; i++) {
      events.delete(doomed.get(i));
    }
    return Math.max(0, doomed.size() - 1);
  }

  /** How many events the store holds for the key with these canonical bytes. */
  int eventCount(byte[] keyBytes) {
    int n = 0;
    try (KeyValueIterator<Bytes, byte[]> it = events.range(eventKey(keyBytes, lowest()), eventKey(keyBytes, highest()))) {
      while (it.hasNext()) {
        it.next();
        n++;
      }
    }
    return n;
  }

  private byte[] keyBytes(BusinessKey key) {
    if (key != lastKey && !key.equals(lastKey)) {
      lastKey = key;
      lastKeyBytes = json.keyBytes(key);
    }
    return lastKeyBytes;
  }

  private byte[] versionBytes(Version v) {
    if (v != lastVersion || lastVersionBytes == null) {
      lastVersion = v;
      lastVersionBytes = state.encodeVersion(v);
    }
    return lastVersionBytes;
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
