package io.dimstream.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.dimstream.expr.SpecExpressions;
import io.dimstream.fixtures.Arrivals;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.Expressions;
import io.dimstream.spec.HistoryMode;
import io.dimstream.types.ColumnType;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * A derived attribute that reads the previous version ({@code lifetime_spend}) is right whatever the arrival order:
 * late events re-derive the events after them, as the fold in sequence order would.
 */
class DerivedAttributeProperties {
  // attributes: tier (tracked), amount, lifetime_spend (both type 1)
  static final DimensionSpec SPEC = DimensionSpec.builder("spend")
      .column("id", ColumnType.LONG).column("tier", ColumnType.STRING).column("amount", ColumnType.DOUBLE)
      .column("lifetime_spend", ColumnType.DOUBLE).column("seq", ColumnType.LONG)
      .key("id").sequence("seq").track("tier")
      .expressions(new Expressions(
          Map.of("lifetime_spend", "(prev == null ? 0.0 : prev.lifetime_spend) + event.amount"), null))
      .build();
  static final Derivation DERIVE = SpecExpressions.compile(SPEC).derivation();

  static Gen<ChangeEvent> events() {
    Gen<Long> keys = longs().between(1, 3);
    Gen<Long> seqs = longs().between(1, 20);
    Gen<String> tiers = arbitrary().pick("gold", "silver");
    // whole amounts: sums of doubles are then exact, so the expectation need not mimic the order of additions
    Gen<Double> amounts = integers().between(0, 50).map(Integer::doubleValue);
    Gen<Boolean> deletes = integers().between(0, 6).map(i -> i == 0);
    return keys.zip(seqs, tiers, amounts, deletes, (k, s, t, a, d) -> d
        ? ChangeEvent.delete(BusinessKey.of(k), Sequence.of(s))
        : ChangeEvent.upsert(BusinessKey.of(k), Sequence.of(s), Arrays.asList(t, a, null)));
  }

  static Gen<List<ChangeEvent>> arrivals() {
    return Arrivals.of(events(), 40, 6);
  }

  @Test
  void shouldGiveTheReferenceFoldWithDerivedAttributesInAnyArrivalOrder() {
    qt().withExamples(400).forAll(arrivals()).checkAssert(arrival -> {
      List<Version> engine = applyIncrementally(arrival);

      assertThat(engine).containsExactlyElementsOf(Scd2Fold.fold(SPEC.trackedMask(), DERIVE, arrival));
      Scd2ContractProperties.assertHistoryInvariants(engine);
    });
  }

  @Test
  void shouldSumEveryAmountSinceTheLastDeleteWhateverTheArrivalOrder() {
    qt().withExamples(400).forAll(arrivals()).checkAssert(DerivedAttributeProperties::holdsTheRunningSum);
  }

  @Test
  void shouldDeriveTheRunningSumIntoEveryType1RowWhateverTheArrivalOrder() {
    qt().withExamples(400).forAll(arrivals()).checkAssert(arrival -> {
      for (HistoryMode mode : List.of(SCD1, SCD1_SOFT)) {
        List<Version> rows = applyIncrementally(mode, arrival);
        assertThat(rows).as("%s", mode)
            .containsExactlyElementsOf(Scd2Fold.fold(new boolean[3], mode, DERIVE, arrival));
        holdsTheType1RunningSum(arrival, rows);
      }
    });
  }

  @Test
  void shouldDeriveTheRowAnUpsertBringsBackAfterADelete() {
    ChangeEvent first = ChangeEvent.upsert(BusinessKey.of(1L), Sequence.of(10), Arrays.asList("gold", 5.0, null));
    ChangeEvent delete = ChangeEvent.delete(BusinessKey.of(1L), Sequence.of(20));
    ChangeEvent back = ChangeEvent.upsert(BusinessKey.of(1L), Sequence.of(30), Arrays.asList("silver", 7.0, null));
    for (HistoryMode mode : List.of(SCD1, SCD1_SOFT)) {
      // the delete ended the key's row: the sum starts again, as a new key's would
      assertThat(applyIncrementally(mode, List.of(first, delete, back))).as("%s", mode).containsExactly(
          new Version(BusinessKey.of(1L), Sequence.of(10), null, Arrays.asList("silver", 7.0, 7.0)));
    }
  }

  static final HistoryMode SCD1 = new HistoryMode(HistoryMode.Kind.SCD1, false);
  static final HistoryMode SCD1_SOFT = new HistoryMode(HistoryMode.Kind.SCD1, true);

  /** A type-1 row holds the running sum at the key's latest upsert: every upsert since the last delete before it. */
  private static void holdsTheType1RunningSum(List<ChangeEvent> arrival, List<Version> rows) {
    Map<BusinessKey, TreeMap<Sequence, ChangeEvent>> byKey = new LinkedHashMap<>();
    arrival.forEach(e -> byKey.computeIfAbsent(e.key(), k -> new TreeMap<>()).put(e.sequence(), e));
    for (Version row : rows) {
      double expected = 0;
      double atLatestUpsert = 0;
      for (ChangeEvent e : byKey.get(row.key()).values()) {
        expected = e.delete() ? 0 : expected + (Double) e.attributes().get(1);
        if (!e.delete()) {
          atLatestUpsert = expected;
        }
      }
      assertThat(row.attributes().get(2)).as("lifetime_spend of %s", row).isEqualTo(atLatestUpsert);
    }
  }

  private static void holdsTheRunningSum(List<ChangeEvent> arrival) {
    Map<BusinessKey, TreeMap<Sequence, ChangeEvent>> byKey = new LinkedHashMap<>();
    arrival.forEach(e -> byKey.computeIfAbsent(e.key(), k -> new TreeMap<>()).put(e.sequence(), e));

    for (Version v : applyIncrementally(arrival)) {
      // a version holds the running sum at its last event: every upsert after the last delete before its end
      double expected = 0;
      for (ChangeEvent e : byKey.get(v.key()).values()) {
        if (v.validTo() != null && !e.sequence().isBefore(v.validTo())) {
          break;
        }
        expected = e.delete() ? 0 : expected + (Double) e.attributes().get(1);
      }
      assertThat(v.attributes().get(2)).as("lifetime_spend of %s", v).isEqualTo(expected);
    }
  }

  private static List<Version> applyIncrementally(List<ChangeEvent> arrival) {
    return applyIncrementally(HistoryMode.SCD2, arrival);
  }

  private static List<Version> applyIncrementally(HistoryMode mode, List<ChangeEvent> arrival) {
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    // type 1 tracks nothing: every upsert overwrites the key's one row
    boolean[] tracked = mode.isScd1() ? new boolean[3] : SPEC.trackedMask();
    IncrementalHistory engine = new IncrementalHistory(tracked, Long.MAX_VALUE, mode, DERIVE);
    HistoryFixtures.AppliedVersions applied = new HistoryFixtures.AppliedVersions();
    for (ChangeEvent e : arrival) {
      applied.apply(((ApplyResult.Applied) engine.apply(store, e)).changes());
    }
    return applied.sorted();
  }
}
