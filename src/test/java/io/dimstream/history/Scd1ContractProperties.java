package io.dimstream.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The type-1 contract as properties: any arrival order and any duplicates give one row per key, equal to a model
 * written from the rule itself (the latest event by sequence decides; the row's values are the latest upsert's).
 */
class Scd1ContractProperties {
  @Test
  void shouldGiveTheLatestRowPerKeyForAnyArrivalOrder() {
    qt().withExamples(400).forAll(Scd2ContractProperties.arrivals()).checkAssert(arrival -> {
      for (HistoryMode mode : List.of(Scd1ContractTest.HARD, Scd1ContractTest.SOFT)) {
        List<Version> rows = Scd1ContractTest.rows(mode, arrival);
        assertThat(rows).as("%s", mode).containsExactlyElementsOf(model(mode, arrival));
        assertThat(rows).as("%s", mode).containsExactlyElementsOf(Scd2Fold.fold(Scd1ContractTest.NONE_TRACKED, mode,
            arrival));
        assertThat(rows.stream().map(Version::key).distinct().count()).isEqualTo(rows.size());
      }
    });
  }

  @Test
  void shouldGiveTheSameRowsForAnyOrderOfDistinctEvents() {
    qt().withExamples(200).forAll(Scd2ContractProperties.arrivals()).checkAssert(arrival -> {
      Map<List<Object>, ChangeEvent> last = new HashMap<>();
      arrival.forEach(e -> last.put(List.of(e.key(), e.sequence()), e));
      List<ChangeEvent> reversed = new ArrayList<>(last.values());
      java.util.Collections.reverse(reversed);
      assertThat(Scd1ContractTest.rows(Scd1ContractTest.SOFT, reversed))
          .containsExactlyElementsOf(Scd1ContractTest.rows(Scd1ContractTest.SOFT, arrival));
    });
  }

  /** The rule as a user states it, independent of the fold: per key, the latest event by sequence decides. */
  static List<Version> model(HistoryMode mode, List<ChangeEvent> arrival) {
    Map<BusinessKey, TreeMap<Sequence, ChangeEvent>> byKey = new TreeMap<>(
        (a, b) -> io.dimstream.model.BusinessKeys.ORDER.compare(a, b));
    arrival.forEach(e -> byKey.computeIfAbsent(e.key(), k -> new TreeMap<>()).put(e.sequence(), e));
    List<Version> out = new ArrayList<>();
    for (TreeMap<Sequence, ChangeEvent> events : byKey.values()) {
      ChangeEvent first = events.values().stream().filter(e -> !e.delete()).findFirst().orElse(null);
      ChangeEvent latestUpsert = events.descendingMap().values().stream().filter(e -> !e.delete()).findFirst()
          .orElse(null);
      if (first == null) {
        continue; // deletes only: no row ever existed
      }
      ChangeEvent deleteAfter = events.tailMap(latestUpsert.sequence(), false).values().stream()
          .filter(ChangeEvent::delete).findFirst().orElse(null);
      if (deleteAfter != null && mode.hardDelete()) {
        continue;
      }
      out.add(new Version(first.key(), first.sequence(), deleteAfter == null ? null : deleteAfter.sequence(),
          latestUpsert.attributes()));
    }
    return out;
  }
}
