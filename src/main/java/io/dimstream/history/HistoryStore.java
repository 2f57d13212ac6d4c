package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import java.util.List;

/**
 * The per-key state the {@link IncrementalHistory} engine reads and writes. The topology backs it with one RocksDB
 * store of events by key + sequence, whose newest event per key is the key's {@link #current} state (so its
 * {@link #putCurrent} writes nothing); tests use {@link InMemoryHistoryStore}.
 *
 * <p>An in-order event costs one {@link #current} read, one {@link #putCurrent} and one {@link #putEvent};
 * a late event also one {@link #eventBefore} and one {@link #eventsFrom} range read of the affected suffix.
 */
public interface HistoryStore {

  /** The key's state after its newest event, or null when the key has no event yet. */
  KeyState current(BusinessKey key);

  /**
   * Records the key's state after its newest event. The engine calls it after {@link #putEvent} of the newest event
   * with the same sequence and open version, so a store may instead derive {@link #current} from that event.
   */
  void putCurrent(BusinessKey key, KeyState state);

  /** The stored event of {@code key} with the greatest sequence strictly before {@code sequence}, or null. */
  StoredEvent eventBefore(BusinessKey key, Sequence sequence);

  /** The stored events of {@code key} with sequence {@code >= from}, in ascending sequence order. */
  List<StoredEvent> eventsFrom(BusinessKey key, Sequence from);

  /** Inserts or replaces the stored event at {@code (key, event.sequence())}. */
  void putEvent(BusinessKey key, StoredEvent event);
}
