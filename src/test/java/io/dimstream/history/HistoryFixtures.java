package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Small helpers shared by the history tests: events with two attributes, one tracked and one type 1. */
final class HistoryFixtures {
  /** Attribute 0 ("city") is tracked, attribute 1 ("name") is type 1. */
  static final boolean[] TRACKED = {true, false};

  private HistoryFixtures() {}

  static ChangeEvent up(long key, long seq, String city, String name) {
    return ChangeEvent.upsert(BusinessKey.of(key), Sequence.of(seq), java.util.Arrays.asList(city, name));
  }

  static ChangeEvent del(long key, long seq) {
    return ChangeEvent.delete(BusinessKey.of(key), Sequence.of(seq));
  }

  static Version version(long key, long from, Long to, String city, String name) {
    return new Version(BusinessKey.of(key), Sequence.of(from), to == null ? null : Sequence.of(to),
        java.util.Arrays.asList(city, name));
  }

  /** What a consumer of the versions topic holds after applying changes in order. */
  static final class AppliedVersions {
    private final Map<List<Object>, Version> rows = new HashMap<>();

    void apply(List<VersionChange> changes) {
      for (VersionChange c : changes) {
        List<Object> id = List.of(c.key(), c.validFrom());
        if (c instanceof VersionChange.Upsert u) {
          rows.put(id, u.version());
        } else {
          rows.remove(id);
        }
      }
    }

    List<Version> sorted() {
      List<Version> out = new ArrayList<>(rows.values());
      out.sort(BusinessKeys.VERSION_ORDER);
      return out;
    }
  }
}
