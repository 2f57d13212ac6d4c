package io.dimstream.history;

import io.dimstream.model.VersionChange;
import java.util.List;

/** The outcome of applying one event: the version changes to emit, or a rejection for being too late. */
public sealed interface ApplyResult {

  /** The event was applied; {@code changes} may be empty (a duplicate or a no-change event). */
  record Applied(List<VersionChange> changes, boolean late) implements ApplyResult {
    public Applied {
      changes = List.copyOf(changes);
    }
  }

  /**
   * The event is older than the key's newest sequence minus the lateness horizon: not applied.
   *
   * @param newest the first part of the key's newest sequence
   */
  record TooLate(long newest, long horizon) implements ApplyResult {}
}
