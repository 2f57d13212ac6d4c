package io.dimstream.topology;

import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded least-recently-used map of each key's newest stored state (or of its having none), in front of one
 * task's event store. It holds only what the store holds: {@link RocksDbHistoryStore} fills it from its reads,
 * updates it on every write, and drops it with the processor (a task moved, closed or re-initialised after an aborted
 * transaction restores its store from the changelog and starts with an empty cache).
 */
final class NewestStateCache {
  /** Keys cached per task by default; each costs its decoded open version plus a map entry on the heap. */
  static final int DEFAULT_MAX_KEYS = 50_000;

  /** Marks a key known to have no stored event (a new key's first event then needs no seek either). */
  private static final KeyState ABSENT = new KeyState(null, null);

  private final Map<BusinessKey, KeyState> states;

  NewestStateCache(int maxKeys) {
    if (maxKeys < 0) {
      throw new IllegalArgumentException("maxKeys must be >= 0, was " + maxKeys);
    }
    this.states = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<BusinessKey, KeyState> eldest) {
        return size() > maxKeys;
      }
    };
  }

  /** What {@link #lookup} answers for a key not cached: its newest state is unknown here. */
  static final KeyState UNKNOWN = new KeyState(null, null);

  /** Whether the key's newest state is cached. */
  boolean contains(BusinessKey key) {
    return states.containsKey(key);
  }

  /**
   * The cached newest state (exact), null when the key is known to have no stored event, or {@link #UNKNOWN} when
   * the key is not cached. One map lookup: the store asks once per event.
   */
  KeyState lookup(BusinessKey key) {
    KeyState s = states.get(key);
    return s == null ? UNKNOWN : s == ABSENT ? null : s;
  }

  /** Records what the store said the key's newest state is (null: no stored event). */
  void read(BusinessKey key, KeyState newest) {
    states.put(key, newest == null ? ABSENT : newest);
  }

  /**
   * Follows a write of {@code event} to the store: it becomes the key's newest state unless a newer event is
   * stored. A key not cached stays uncached (its newest is unknown here, so the next read seeks).
   */
  void written(BusinessKey key, StoredEvent event) {
    states.computeIfPresent(key, (k, s) -> s == ABSENT || !event.sequence().isBefore(s.lastSequence())
        ? new KeyState(event.sequence(), event.openAfter()) : s);
  }

  void clear() {
    states.clear();
  }

  int size() {
    return states.size();
  }
}
