package io.dimstream.history;

import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The stored events that stand for a table's version rows when the engine takes over a table whose events it never
 * saw (a backfilled table, or state that was lost): each row becomes the upsert that opened it and, when it is
 * closed, the delete that closed it. Folded, these events give back exactly the rows, and an event that arrives
 * afterwards closes the current row, splices into the closed ones or changes nothing, as it would have on the events
 * that made them.
 *
 * <p>A row alone says whether a delete or the next version's upsert closed it only together with the key's other
 * rows: the upsert opening the next version sits at the same sequence as the delete and must win. So a taker-over
 * stores every {@link #closing} event first and every {@link #opening} event after them; a later store of one
 * {@code (key, sequence)} replaces an earlier one, as in the event store.
 *
 * <p>What a row cannot tell: events that changed nothing visible in it (an upsert equal to its version, a delete with
 * nothing open) and the values a type-1 column had before its last overwrite. An event arriving later that lands
 * between such events is folded as if they had not been sent, unless the writer of the rows kept those events
 * ({@link #hidden}) and the taker-over stores them after the rest.
 */
public final class TableEvents {
  private TableEvents() {}

  /**
   * The upsert at the row's {@code valid_from} carrying its attributes, with the row, open, as the version after it.
   */
  public static StoredEvent opening(Version row) {
    Version open = row.isCurrent() ? row : new Version(row.key(), row.validFrom(), null, row.attributes());
    return new StoredEvent(ChangeEvent.upsert(row.key(), row.validFrom(), row.attributes()), open);
  }

  /**
   * The delete at the row's {@code valid_to}, or empty when the row is open. No version is open after it, except with
   * {@code history: scd1}, whose fold keeps the deleted key's row, closed, as its state (an upsert re-opens it).
   */
  public static Optional<StoredEvent> closing(Version row, HistoryMode mode) {
    if (row.isCurrent()) {
      return Optional.empty();
    }
    return Optional.of(new StoredEvent(ChangeEvent.delete(row.key(), row.validTo()), mode.isScd1() ? row : null));
  }

  /**
   * The stored events of one key that its rows do not stand for: each stored event that differs from the
   * {@link #opening} or {@link #closing} event a taker-over derives at its sequence from {@code rows}, among the events
   * the engine's store keeps after pruning (those from the newest one below the key's lateness cutoff on). Stored after
   * the rows' events, they give the taker-over exactly the engine's state.
   *
   * @param stored the key's stored events in sequence order (one per sequence), as the engine holds them
   * @param rows   the key's rows folded from them
   */
  public static List<StoredEvent> hidden(List<StoredEvent> stored, List<Version> rows, HistoryMode mode,
      IncrementalHistory engine) {
    if (stored.isEmpty()) {
      return List.of();
    }
    Map<Sequence, StoredEvent> shown = new HashMap<>();
    rows.forEach(r -> closing(r, mode).ifPresent(e -> shown.put(e.sequence(), e)));
    rows.forEach(r -> shown.put(r.validFrom(), opening(r)));
    StoredEvent newest = stored.get(stored.size() - 1);
    long cutoff = engine.pruneCutoff(new KeyState(newest.sequence(), newest.openAfter()));
    int from = 0;
    for (int i = 0; i < stored.size() && stored.get(i).sequence().first() < cutoff; i++) {
      from = i; // the newest event below the cutoff stays, as the anchor of a later re-fold
    }
    List<StoredEvent> out = new ArrayList<>();
    for (StoredEvent e : stored.subList(from, stored.size())) {
      if (!e.equals(shown.get(e.sequence()))) {
        out.add(e);
      }
    }
    return out;
  }
}
