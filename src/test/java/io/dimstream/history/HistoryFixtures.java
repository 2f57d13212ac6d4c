package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import java.util.List;

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
    private final VersionsById rows = new VersionsById();

    void apply(List<VersionChange> changes) {
      rows.apply(changes);
    }

    List<Version> sorted() {
      return rows.sorted();
    }
  }
}
