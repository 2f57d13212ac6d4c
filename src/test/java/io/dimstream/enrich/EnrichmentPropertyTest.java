package io.dimstream.enrich;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.history.ApplyResult;
import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The enrichment's contract: whatever the interleaving of a dimension's change stream (late, duplicated, deleting,
 * changing nothing) and a fact stream, the last record per fact key equals the batch point-in-time join of all facts
 * with the final history (the reference fold of the events the dimension accepted), and each fact's records are
 * numbered 1, 2, 3, … (a redelivered fact the horizon has passed repeats its one record), also across a fact sent
 * again with another customer or time.
 */
class EnrichmentPropertyTest {

  /** One generated run: dimension events, facts, how they interleave, and the settings. */
  record Run(List<Integer> dimension, List<Integer> facts, List<Boolean> order, boolean showVersion, int grace,
      boolean shortHorizon, boolean restarts) {}

  @Test
  void shouldEndWithTheBatchJoinWhateverTheInterleaving() {
    qt().withExamples(500)
        .forAll(lists().of(integers().between(0, 100_000)).ofSizeBetween(0, 30),
            lists().of(integers().between(0, 100_000)).ofSizeBetween(0, 20),
            lists().of(booleans().all()).ofSizeBetween(0, 60),
            integers().between(0, 31))
        // settings: bit 0 shows the version id and valid_from, bits 1-2 the grace in seconds, bit 3 a 5 s horizon,
        // bit 4 a restart every fifth step (a new enricher over the same stores, as a task revived after an abort)
        .as((d, f, o, s) -> new Run(d, f, o, (s & 1) != 0, (s >> 1) & 3, (s & 8) != 0, (s & 16) != 0))
        .checkAssert(EnrichmentPropertyTest::check);
  }

  private static void check(Run run) {
    long horizon = run.shortHorizon() ? EnrichmentFixtures.micros(5) : Long.MAX_VALUE;
    DimensionSpec customers = EnrichmentFixtures.customers(horizon);
    EnrichmentSpec spec = EnrichmentFixtures.orders(customers, run.showVersion(), run.grace() + "s");
    IncrementalHistory history = new IncrementalHistory(customers);
    InMemoryHistoryStore historyStore = new InMemoryHistoryStore();
    InMemorySortedBytesStore versionsStore = new InMemorySortedBytesStore();
    InMemorySortedBytesStore factsStore = new InMemorySortedBytesStore();
    EnrichmentCounters counters = new EnrichmentCounters();
    Enricher enricher = new Enricher(spec, versionsStore, factsStore, counters);
    EnrichedRows rows = new EnrichedRows(spec);
    Map<String, List<Enriched>> emitted = new LinkedHashMap<>();
    java.util.function.Consumer<Enriched> out = e -> emitted
        .computeIfAbsent(new String(rows.key(e), StandardCharsets.UTF_8), k -> new ArrayList<>()).add(e);

    List<ChangeEvent> accepted = new ArrayList<>();
    List<Fact> facts = new ArrayList<>();
    int di = 0;
    int fi = 0;
    long now = 0;
    int step = 0;
    while (di < run.dimension().size() || fi < run.facts().size()) {
      boolean takeDimension = fi >= run.facts().size() || di < run.dimension().size()
          && (step < run.order().size() ? run.order().get(step) : step % 2 == 0);
      step++;
      now += 700; // wall clock, milliseconds: a fact waits a few steps at most
      if (takeDimension) {
        ChangeEvent e = dimensionEvent(run.dimension().get(di++));
        ApplyResult r = history.apply(historyStore, e);
        if (r instanceof ApplyResult.Applied a) {
          accepted.add(e);
          for (VersionChange c : a.changes()) {
            enricher.onVersionChange(c, now, out);
          }
        }
      } else {
        Fact fact = fact(orderId(fi, run), run.facts().get(fi));
        fi++;
        facts.add(fact);
        enricher.onFact(fact, now, out);
        if (fi % 3 == 0 && fi > 0) {
          facts.add(fact);
          enricher.onFact(fact, now, out); // a redelivered fact
        }
      }
      if (step % 4 == 0) {
        enricher.onTick(now, out);
      }
      if (run.restarts() && step % 5 == 0) {
        enricher = new Enricher(spec, versionsStore, factsStore, counters);
      }
    }
    enricher.onTick(Long.MAX_VALUE, out);

    Map<String, Enriched> expected = BatchEnrichment.join(spec, facts, Scd2Fold.fold(customers, accepted));
    Map<String, ObjectNode> last = new HashMap<>();
    emitted.forEach((k, records) -> {
      assertThat(records.get(0).revision()).as("first revision of fact %s", k).isEqualTo(1);
      for (int i = 1; i < records.size(); i++) {
        Enriched prev = records.get(i - 1);
        Enriched e = records.get(i);
        if (e.revision() == prev.revision()) {
          // a redelivered fact older than the horizon is not kept, so it is enriched again: the same record
          assertThat(rows.row(e)).as("repeated record %d of fact %s", i + 1, k).isEqualTo(rows.row(prev));
        } else {
          assertThat(e.revision()).as("revision of record %d of fact %s", i + 1, k).isEqualTo(prev.revision() + 1);
        }
      }
      last.put(k, withoutRevision(rows.row(records.get(records.size() - 1))));
    });
    Map<String, ObjectNode> want = new HashMap<>();
    expected.forEach((k, e) -> want.put(k, withoutRevision(rows.row(e))));
    assertThat(last).isEqualTo(want);
  }

  /** customer 0..2, at second 0..19, a delete one time in five, city/tier/name from two values each. */
  private static ChangeEvent dimensionEvent(int x) {
    long customer = x % 3;
    int second = (x / 3) % 20;
    if ((x / 60) % 5 == 0) {
      return EnrichmentFixtures.delete(customer, second);
    }
    return EnrichmentFixtures.upsert(customer, second, "n" + (x / 1200) % 2, "c" + (x / 300) % 2, "t" + (x / 600) % 2);
  }

  /**
   * The order id of the {@code i}th fact: its own, or one time in four (with the horizon of days, which keeps every
   * fact) an earlier fact's, sent again with another customer, time or amount.
   */
  private static long orderId(int i, Run run) {
    int y = run.facts().get(i);
    if (run.shortHorizon() || i == 0 || y % 5 != 4) {
      return i;
    }
    return (y / 96) % i;
  }

  /** order i of customer 0..3 (3 is never in the dimension), at second -1..22. */
  private static Fact fact(long i, int y) {
    return EnrichmentFixtures.order(i, y % 4, (y / 4) % 24 - 1, 10.0 + i);
  }

  private static ObjectNode withoutRevision(ObjectNode row) {
    ObjectNode copy = row.deepCopy();
    copy.remove("revision");
    return copy;
  }
}
