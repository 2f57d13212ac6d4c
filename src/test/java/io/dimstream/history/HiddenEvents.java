package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys whose history a takeover cannot make exact: a key of the table with an event its rows cannot show (see
 * {@link TableEvents}), that receives, after the takeover, an event at or before its newest event before it.
 */
public final class HiddenEvents {
  private HiddenEvents() {}

  /** {@code before}: the events in the table when it is taken over; {@code after}: the events sent afterwards. */
  public static Set<BusinessKey> keysAtRisk(DimensionSpec spec, List<ChangeEvent> before, List<ChangeEvent> after) {
    Map<BusinessKey, Sequence> hidden = TakeoverProperties.keysWithHiddenEvents(before, spec.trackedMask(),
        spec.history());
    Set<BusinessKey> out = new HashSet<>();
    for (ChangeEvent e : after) {
      Sequence newest = hidden.get(e.key());
      if (newest != null && !e.sequence().isAfter(newest)) {
        out.add(e.key());
      }
    }
    return out;
  }
}
