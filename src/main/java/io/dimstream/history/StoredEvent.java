package io.dimstream.history;

import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;

/**
 * What the event store holds per (key, sequence): the event, and the version open right after it was folded
 * (null when none is open). Keeping the fold state beside each event lets a late event re-fold from the event
 * just before it instead of from the key's first event.
 */
public record StoredEvent(ChangeEvent event, Version openAfter) {
  public Sequence sequence() {
    return event.sequence();
  }
}
