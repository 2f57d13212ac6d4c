package io.dimstream.history;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import static io.dimstream.history.HistoryFixtures.TRACKED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The SCD2 contract as properties: any arrival order, any duplicates, the same history as the reference fold. */
class Scd2ContractProperties {

  @Provide
  Arbitrary<ChangeEvent> events() {
    Arbitrary<Long> keys = Arbitraries.longs().between(1, 4);
    Arbitrary<Long> seqs = Arbitraries.longs().between(1, 15);
    Arbitrary<String> cities = Arbitraries.of("Oslo", "Rome", null);
    Arbitrary<String> names = Arbitraries.of("A", "B");
    Arbitrary<Boolean> deletes = Arbitraries.integers().between(0, 5).map(i -> i == 0);
    return Combinators.combine(keys, seqs, cities, names, deletes).as((k, s, c, n, d) -> d
        ? HistoryFixtures.del(k, s) : HistoryFixtures.up(k, s, c, n));
  }

  @Provide
  Arbitrary<List<ChangeEvent>> arrivals() {
    // Duplicates arise both from the small value space and from explicitly repeated events.
    return events().list().ofMaxSize(40).flatMap(base -> Arbitraries.integers().between(0, Math.max(0, base.size() - 1))
        .list().ofMaxSize(8).map(dupIdx -> {
          List<ChangeEvent> all = new ArrayList<>(base);
          if (!base.isEmpty()) {
            dupIdx.forEach(i -> all.add(base.get(i)));
          }
          return all;
        })).flatMap(all -> Arbitraries.shuffle(all));
  }

  @Property(tries = 600)
  void anyArrivalOrderGivesTheReferenceFold(@ForAll("arrivals") List<ChangeEvent> arrival) {
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

  @Property(tries = 300)
  void theFoldIgnoresArrivalOrderExceptAmongEqualSequences(@ForAll("arrivals") List<ChangeEvent> arrival) {
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
