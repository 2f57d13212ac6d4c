package io.dimstream.history;

import static io.dimstream.history.HistoryFixtures.TRACKED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.dimstream.fixtures.Arrivals;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** The SCD2 contract as properties: any arrival order, any duplicates, the same history as the reference fold. */
class Scd2ContractProperties {

  static Gen<ChangeEvent> events() {
    Gen<Long> keys = longs().between(1, 4);
    Gen<Long> seqs = longs().between(1, 15);
    Gen<String> cities = arbitrary().pick("Oslo", "Rome", null);
    Gen<String> names = arbitrary().pick("A", "B");
    Gen<Boolean> deletes = integers().between(0, 5).map(i -> i == 0);
    return keys.zip(seqs, cities, names, deletes, (k, s, c, n, d) -> d
        ? HistoryFixtures.del(k, s) : HistoryFixtures.up(k, s, c, n));
  }

  /** Duplicates arise both from the small value space and from explicitly repeated events. */
  static Gen<List<ChangeEvent>> arrivals() {
    return Arrivals.of(events(), 40, 8);
  }

  @Test
  void anyArrivalOrderGivesTheReferenceFold() {
    qt().withExamples(600).forAll(arrivals()).checkAssert(Scd2ContractProperties::foldsAsTheReference);
  }

  private static void foldsAsTheReference(List<ChangeEvent> arrival) {
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    IncrementalHistory engine = new IncrementalHistory(TRACKED, Long.MAX_VALUE);
    HistoryFixtures.AppliedVersions applied = new HistoryFixtures.AppliedVersions();
    for (ChangeEvent e : arrival) {
      applied.apply(((ApplyResult.Applied) engine.apply(store, e)).changes());
    }
    List<Version> result = applied.sorted();
    assertThat(result).containsExactlyElementsOf(Scd2Fold.fold(TRACKED, arrival));
    assertHistoryInvariants(result);
  }

  @Test
  void theFoldIgnoresArrivalOrderExceptAmongEqualSequences() {
    qt().withExamples(300).forAll(arrivals()).checkAssert(Scd2ContractProperties::foldsAlikeReversed);
  }

  private static void foldsAlikeReversed(List<ChangeEvent> arrival) {
    // Keep only the last arrival per (key, sequence), then any order of those gives the same fold.
    Map<List<Object>, ChangeEvent> last = new HashMap<>();
    arrival.forEach(e -> last.put(List.of(e.key(), e.sequence()), e));
    List<ChangeEvent> reversed = new ArrayList<>(last.values());
    java.util.Collections.reverse(reversed);
    assertThat(Scd2Fold.fold(TRACKED, reversed)).containsExactlyElementsOf(Scd2Fold.fold(TRACKED, arrival));
  }

  static void assertHistoryInvariants(List<Version> sortedVersions) {
    Map<BusinessKey, List<Version>> byKey = new HashMap<>();
    sortedVersions.forEach(v -> byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v));
    for (List<Version> versions : byKey.values()) {
      assertThat(versions.stream().filter(Version::isCurrent).count()).isLessThanOrEqualTo(1);
      for (int i = 0; i + 1 < versions.size(); i++) {
        Version a = versions.get(i);
        Version b = versions.get(i + 1);
        assertThat(a.validTo()).as("only the last version of a key may be open: %s", a).isNotNull();
        assertThat(a.validTo().compareTo(b.validFrom())).as("%s overlaps %s", a, b).isLessThanOrEqualTo(0);
      }
      for (Version v : versions) {
        if (v.validTo() != null) {
          assertThat(v.validTo().isAfter(v.validFrom())).as("empty interval %s", v).isTrue();
        }
      }
    }
  }
}
