package io.dimstream.history;

import static io.dimstream.history.HistoryFixtures.TRACKED;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Absent;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@code missing_fields: keep} under the contract: any arrival order gives the reference fold's history. */
class MissingFieldsKeepProperties {

  @Provide
  Arbitrary<List<ChangeEvent>> arrivals() {
    Arbitrary<Long> keys = Arbitraries.longs().between(1, 3);
    Arbitrary<Long> seqs = Arbitraries.longs().between(1, 12);
    Arbitrary<Object> cities = Arbitraries.of("Oslo", "Rome", null, Absent.VALUE);
    Arbitrary<Object> names = Arbitraries.of("A", "B", Absent.VALUE);
    Arbitrary<Boolean> deletes = Arbitraries.integers().between(0, 5).map(i -> i == 0);
    Arbitrary<ChangeEvent> events = Combinators.combine(keys, seqs, cities, names, deletes).as((k, s, c, n, d) -> d
        ? HistoryFixtures.del(k, s) : MissingFieldsKeepTest.partial(k, s, c, n));
    return events.list().ofMaxSize(30).flatMap(Arbitraries::shuffle);
  }

  @Property(tries = 500)
  void shouldGiveTheReferenceFoldForAnyArrivalOrder(@ForAll("arrivals") List<ChangeEvent> arrival) {
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    IncrementalHistory engine = new IncrementalHistory(TRACKED, Long.MAX_VALUE);
    HistoryFixtures.AppliedVersions applied = new HistoryFixtures.AppliedVersions();
    for (ChangeEvent e : arrival) {
      applied.apply(((ApplyResult.Applied) engine.apply(store, e)).changes());
    }
    List<Version> result = applied.sorted();
    assertThat(result).containsExactlyElementsOf(Scd2Fold.fold(TRACKED, arrival));
    Scd2ContractProperties.assertHistoryInvariants(result);
    assertThat(result).allSatisfy(v -> assertThat(v.attributes()).doesNotContain(Absent.VALUE));
  }

  @Property(tries = 300)
  void shouldFoldTheSameWhateverTheOrderOfDistinctSequences(@ForAll("arrivals") List<ChangeEvent> arrival) {
    Map<List<Object>, ChangeEvent> last = new HashMap<>();
    arrival.forEach(e -> last.put(List.of(e.key(), e.sequence()), e));
    List<ChangeEvent> reversed = new ArrayList<>(last.values());
    Collections.reverse(reversed);
    assertThat(Scd2Fold.fold(TRACKED, reversed)).containsExactlyElementsOf(Scd2Fold.fold(TRACKED, arrival));
  }
}
