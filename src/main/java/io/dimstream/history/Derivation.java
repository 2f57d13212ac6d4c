package io.dimstream.history;

import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;

/**
 * Fills an upsert's derived attributes from the event and the version open just before it in sequence order.
 * Called by {@link FoldStep} at every fold of the event, so a late event that changes the open version before a
 * stored event re-derives that event's attributes too.
 */
@FunctionalInterface
public interface Derivation {
  /** Derives nothing: the event's attributes are kept as decoded. */
  Derivation NONE = (open, event) -> event;

  /**
   * @param open  the version open before the event (null when none is open)
   * @param event an upsert
   * @return the event with its derived attributes set
   * @throws RuntimeException when an expression fails on this event; the fold does not catch it
   */
  ChangeEvent derive(Version open, ChangeEvent event);
}
