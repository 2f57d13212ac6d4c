package io.dimstream.query;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import java.util.List;

/**
 * One change of one key at one sequence point, as {@link HistoryQueries#changes} reports it.
 *
 * @param at      the sequence at which {@code before} closed and/or {@code after} opened
 * @param kind    {@code INSERT}: a version opened with none closing at {@code at} (a new key, or a re-insert after a
 *                delete); {@code UPDATE}: a version closed and the next opened at {@code at}; {@code DELETE}: a
 *                version closed with none opening
 * @param before  the version that closed at {@code at}; null for an insert
 * @param after   the version that opened at {@code at}; null for a delete
 * @param changed the attribute columns whose values differ between {@code before} and {@code after} (every
 *                attribute of the present one for an insert or a delete), in attribute order
 */
public record Change(BusinessKey key, Sequence at, Kind kind, Version before, Version after, List<String> changed) {
  public Change {
    changed = List.copyOf(changed);
  }

  /** The closed set of change kinds. */
  public enum Kind { INSERT, UPDATE, DELETE }
}
