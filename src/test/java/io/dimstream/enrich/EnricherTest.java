package io.dimstream.enrich;

import static io.dimstream.enrich.EnrichmentFixtures.delete;
import static io.dimstream.enrich.EnrichmentFixtures.order;
import static io.dimstream.enrich.EnrichmentFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.history.ApplyResult;
import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnricherTest {
  private final List<Enriched> out = new ArrayList<>();
  private final EnrichmentCounters counters = new EnrichmentCounters();
  private DimensionSpec customers;
  private IncrementalHistory history;
  private final InMemoryHistoryStore historyStore = new InMemoryHistoryStore();
  private Enricher enricher;

  private void start(long horizonMicros, String grace) {
    customers = EnrichmentFixtures.customers(horizonMicros);
    history = new IncrementalHistory(customers);
    enricher = new Enricher(EnrichmentFixtures.orders(customers, false, grace), new InMemorySortedBytesStore(),
        new InMemorySortedBytesStore(), counters);
  }

  private void dimension(ChangeEvent e, long now) {
    if (history.apply(historyStore, e) instanceof ApplyResult.Applied a) {
      for (VersionChange c : a.changes()) {
        enricher.onVersionChange(c, now, out::add);
      }
    }
  }

  @Test
  void shouldEnrichAFactWithTheVersionValidAtItsTime() {
    start(Long.MAX_VALUE, "0s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    dimension(upsert(1, 20, "Ada", "Lyon", "gold"), 0);

    enricher.onFact(order(100, 1, 15, 9.5), 0, out::add);
    enricher.onFact(order(101, 1, 20, 9.5), 0, out::add);
    enricher.onFact(order(102, 1, 5, 9.5), 0, out::add);

    assertThat(out).extracting(e -> e.version() == null ? null : e.version().attributes().get(1), Enriched::revision)
        .containsExactly(tuple("Paris", 1L), tuple("Lyon", 1L), tuple(null, 1L));
    assertThat(counters.enriched()).isEqualTo(3);
    assertThat(counters.unmatched()).isEqualTo(1);
  }

  @Test
  void shouldCorrectAFactWhenALateEventSplitsItsVersion() {
    start(Long.MAX_VALUE, "0s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    enricher.onFact(order(100, 1, 15, 9.5), 0, out::add);
    enricher.onFact(order(101, 1, 12, 9.5), 0, out::add);

    dimension(upsert(1, 14, "Ada", "Lyon", "gold"), 0); // late: the dimension learns Ada moved at 14
    enricher.onTick(0, out::add);

    assertThat(out).extracting(e -> e.fact().values().get(0), e -> e.version().attributes().get(1), Enriched::revision)
        .containsExactly(tuple(100L, "Paris", 1L), tuple(101L, "Paris", 1L), tuple(100L, "Lyon", 2L));
    assertThat(counters.corrected()).isEqualTo(1);
  }

  @Test
  void shouldCorrectAFactToNotFoundWhenALateDeleteCoversIt() {
    start(Long.MAX_VALUE, "0s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    enricher.onFact(order(100, 1, 15, 9.5), 0, out::add);

    dimension(delete(1, 12), 0);
    enricher.onTick(0, out::add);

    assertThat(out).extracting(Enriched::found, Enriched::revision).containsExactly(tuple(true, 1L), tuple(false, 2L));
  }

  @Test
  void shouldNotReEmitWhenTheChangeLeavesTheShownAttributesAlone() {
    start(Long.MAX_VALUE, "0s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    enricher.onFact(order(100, 1, 15, 9.5), 0, out::add);

    dimension(upsert(1, 12, "Ada L.", "Paris", "gold"), 0); // type 1: name is neither tracked nor shown
    enricher.onTick(0, out::add);

    assertThat(out).hasSize(1);
  }

  @Test
  void shouldHoldAFactBackForGraceUntilTheDimensionReachesItsTime() {
    start(Long.MAX_VALUE, "10s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    enricher.onFact(order(100, 1, 30, 9.5), 1_000, out::add);
    enricher.onFact(order(101, 1, 60, 9.5), 1_000, out::add);
    assertThat(out).isEmpty();
    assertThat(counters.waited()).isEqualTo(2);

    dimension(upsert(1, 40, "Ada", "Lyon", "gold"), 2_000); // the dimension reaches 30: order 100 is decided
    assertThat(out).extracting(e -> e.fact().values().get(0), e -> e.version().attributes().get(1), Enriched::revision)
        .containsExactly(tuple(100L, "Paris", 1L));

    enricher.onTick(10_999, out::add);
    assertThat(out).hasSize(1);
    enricher.onTick(11_000, out::add); // order 101's grace ran out
    assertThat(out).extracting(e -> e.fact().values().get(0), e -> e.version().attributes().get(1), Enriched::revision)
        .containsExactly(tuple(100L, "Paris", 1L), tuple(101L, "Lyon", 1L));
    assertThat(counters.corrected()).isZero();
  }

  @Test
  void shouldDropFactsTheHorizonHasPassedAndEnrichOlderFactsWithoutKeepingThem() {
    start(EnrichmentFixtures.micros(5), "0s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    enricher.onFact(order(100, 1, 11, 9.5), 0, out::add);
    enricher.onFact(order(101, 1, 18, 9.5), 0, out::add);
    assertThat(enricher.keptFacts()).isEqualTo(2);

    dimension(upsert(1, 20, "Ada", "Lyon", "gold"), 0); // horizon 5 s: facts before 15 s can no longer change
    assertThat(enricher.keptFacts()).isEqualTo(1);
    assertThat(counters.dropped()).isEqualTo(1);

    enricher.onFact(order(102, 1, 12, 9.5), 0, out::add); // older than the horizon: enriched, final, not kept
    assertThat(out).last().extracting(e -> e.version().attributes().get(1), Enriched::revision)
        .containsExactly("Paris", 1L);
    assertThat(enricher.keptFacts()).isEqualTo(1);
    assertThat(counters.dropped()).isEqualTo(2);
  }

  @Test
  void shouldIgnoreARedeliveredFactAndReviseAFactSentAgainWithOtherValues() {
    start(Long.MAX_VALUE, "0s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    enricher.onFact(order(100, 1, 15, 9.5), 0, out::add);
    enricher.onFact(order(100, 1, 15, 9.5), 0, out::add);
    enricher.onFact(order(100, 1, 15, 12.0), 0, out::add);

    assertThat(out).extracting(e -> e.fact().values().get(3), Enriched::revision)
        .containsExactly(tuple(9.5, 1L), tuple(12.0, 2L));
  }

  @Test
  void shouldReplaceAFactSentAgainAtAnotherTimeSoThatOnlyItsNewFormIsCorrected() {
    start(Long.MAX_VALUE, "0s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    enricher.onFact(order(100, 1, 15, 9.5), 0, out::add);
    enricher.onFact(order(100, 1, 30, 9.5), 0, out::add); // the order's time corrected from 15 to 30

    dimension(upsert(1, 12, "Ada", "Lyon", "gold"), 0); // late: covers 15, where the order no longer is
    enricher.onTick(0, out::add);

    assertThat(out).extracting(e -> e.fact().values().get(2), e -> e.version().attributes().get(1),
        Enriched::revision).containsExactly(
            tuple(EnrichmentFixtures.at(15), "Paris", 1L), tuple(EnrichmentFixtures.at(30), "Paris", 2L),
            tuple(EnrichmentFixtures.at(30), "Lyon", 3L));
    assertThat(enricher.keptFacts()).isEqualTo(1);
    assertThat(counters.enriched()).isEqualTo(1);
    assertThat(counters.corrected()).isEqualTo(2);
  }

  @Test
  void shouldReplaceAFactSentAgainWithAnotherJoinKey() {
    start(Long.MAX_VALUE, "0s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    dimension(upsert(2, 10, "Bob", "Rome", "silver"), 0);
    enricher.onFact(order(100, 1, 15, 9.5), 0, out::add);
    enricher.onFact(order(100, 2, 15, 9.5), 0, out::add); // the order belonged to customer 2

    dimension(upsert(1, 12, "Ada", "Lyon", "gold"), 0); // changes customer 1 at 15: nothing to correct
    enricher.onTick(0, out::add);

    assertThat(out).extracting(e -> e.fact().values().get(1), e -> e.version().attributes().get(1),
        Enriched::revision).containsExactly(tuple(1L, "Paris", 1L), tuple(2L, "Rome", 2L));
    assertThat(enricher.keptFacts()).isEqualTo(1);
  }

  @Test
  void shouldReplaceAWaitingFactSentAgainAtAnotherTimeAndGoOnFromItsLastRevision() {
    start(Long.MAX_VALUE, "10s");
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    enricher.onFact(order(100, 1, 5, 9.5), 0, out::add); // decided at once: the dimension is past 5
    enricher.onFact(order(100, 1, 30, 9.5), 0, out::add); // moved to 30: waits for the dimension
    enricher.onFact(order(100, 1, 40, 9.5), 0, out::add); // moved again while waiting

    enricher.onTick(10_000, out::add);

    assertThat(out).extracting(e -> e.fact().values().get(2), Enriched::found, Enriched::revision).containsExactly(
        tuple(EnrichmentFixtures.at(5), false, 1L), tuple(EnrichmentFixtures.at(40), true, 2L));
    assertThat(enricher.keptFacts()).isEqualTo(1);
  }

  @Test
  void shouldKeepNothingOfAFactSentAgainAtATimeTheHorizonHasPassed() {
    customers = EnrichmentFixtures.customers(EnrichmentFixtures.micros(5));
    history = new IncrementalHistory(customers);
    InMemorySortedBytesStore factsStore = new InMemorySortedBytesStore();
    enricher = new Enricher(EnrichmentFixtures.orders(customers, false, "0s"), new InMemorySortedBytesStore(),
        factsStore, counters);
    dimension(upsert(1, 10, "Ada", "Paris", "gold"), 0);
    dimension(upsert(1, 20, "Ada", "Lyon", "gold"), 0); // horizon 5 s: facts before 15 s are no longer kept
    enricher.onFact(order(100, 1, 22, 9.5), 0, out::add);
    enricher.onFact(order(100, 1, 12, 9.5), 0, out::add); // moved before the horizon: emitted, final, not kept

    assertThat(out).extracting(e -> e.version().attributes().get(1), Enriched::revision)
        .containsExactly(tuple("Lyon", 1L), tuple("Paris", 2L));
    assertThat(enricher.keptFacts()).isZero();
    assertThat(factsStore.size()).as("records left in the facts store").isZero();
  }

  private static org.assertj.core.groups.Tuple tuple(Object... values) {
    return org.assertj.core.groups.Tuple.tuple(values);
  }
}
