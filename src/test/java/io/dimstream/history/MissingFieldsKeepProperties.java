package io.dimstream.history;

import static io.dimstream.history.HistoryFixtures.TRACKED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.dimstream.fixtures.Arrivals;
import io.dimstream.model.Absent;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** {@code missing_fields: keep} under the contract: any arrival order gives the reference fold's history. */
class MissingFieldsKeepProperties {

  static Gen<List<ChangeEvent>> arrivals() {
    Gen<Long> keys = longs().between(1, 3);
    Gen<Long> seqs = longs().between(1, 12);
    Gen<Object> cities = arbitrary().pick("Oslo", "Rome", null, Absent.VALUE);
    Gen<Object> names = arbitrary().pick("A", "B", Absent.VALUE);
    Gen<Boolean> deletes = integers().between(0, 5).map(i -> i == 0);
    Gen<ChangeEvent> events = keys.zip(seqs, cities, names, deletes, (k, s, c, n, d) -> d
        ? HistoryFixtures.del(k, s) : MissingFieldsKeepTest.partial(k, s, c, n));
    return Arrivals.of(events, 30, 0);
  }

  @Test
  void shouldGiveTheReferenceFoldForAnyArrivalOrder() {
    qt().withExamples(500).forAll(arrivals()).checkAssert(arrival -> {
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
    });
  }

  @Test
  void shouldFoldTheSameWhateverTheOrderOfDistinctSequences() {
    qt().withExamples(300).forAll(arrivals()).checkAssert(arrival -> {
      Map<List<Object>, ChangeEvent> last = new HashMap<>();
      arrival.forEach(e -> last.put(List.of(e.key(), e.sequence()), e));
      List<ChangeEvent> reversed = new ArrayList<>(last.values());
      Collections.reverse(reversed);
      assertThat(Scd2Fold.fold(TRACKED, reversed)).containsExactlyElementsOf(Scd2Fold.fold(TRACKED, arrival));
    });
  }
}
