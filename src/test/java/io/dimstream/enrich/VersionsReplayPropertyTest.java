package io.dimstream.enrich;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import io.dimstream.codec.EventJson;
import io.dimstream.history.ApplyResult;
import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.spec.DimensionSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What an enrichment added to a running service relies on: its versions store, filled from the versions topic's
 * beginning to the end it had then (compacted or not), and then fed again from wherever the application's position
 * was, holds the same versions as one fed the whole topic once, in order.
 */
class VersionsReplayPropertyTest {

  @Test
  void shouldEndWithTheVersionsOfTheWholeTopicWhateverIsAppliedAgain() {
    qt().withExamples(300)
        .forAll(lists().of(integers().between(0, 100_000)).ofSizeBetween(0, 40),
            integers().between(0, 1_000), integers().between(0, 1_000), booleans().all())
        .checkAssert(VersionsReplayPropertyTest::check);
  }

  private static void check(List<Integer> events, int resumeAt, int fillEnd, boolean compacted) {
    DimensionSpec customers = EnrichmentFixtures.customers(Long.MAX_VALUE);
    EnrichmentSpec spec = EnrichmentFixtures.orders(customers, true, "0s");
    List<VersionChange> topic = topic(customers, events);
    int resume = topic.isEmpty() ? 0 : resumeAt % (topic.size() + 1);
    int end = resume + (topic.size() == resume ? 0 : fillEnd % (topic.size() - resume + 1));

    InMemorySortedBytesStore once = new InMemorySortedBytesStore();
    Enricher whole = new Enricher(spec, once, new InMemorySortedBytesStore(), new EnrichmentCounters());
    topic.forEach(c -> whole.onVersionChange(c, 0, e -> { }));

    InMemorySortedBytesStore filled = new InMemorySortedBytesStore();
    Enricher added = new Enricher(spec, filled, new InMemorySortedBytesStore(), new EnrichmentCounters());
    List<VersionChange> read = topic.subList(0, end);
    (compacted ? compact(read) : read).forEach(c -> added.onVersionChange(c, 0, e -> { }));
    topic.subList(resume, topic.size()).forEach(c -> added.onVersionChange(c, 0, e -> { }));

    EnrichmentState state = new EnrichmentState(spec);
    Map<String, EnrichmentState.KeyVersions> want = versions(once, state);
    Map<String, EnrichmentState.KeyVersions> got = versions(filled, state);
    assertThat(got.keySet()).isEqualTo(want.keySet());
    want.forEach((key, kv) -> {
      assertThat(got.get(key).versions()).as("versions of %s", key).isEqualTo(kv.versions());
      // a version compacted away before its retraction was read does not count: the key's progress may be lower,
      // so its facts are kept, and wait, a little longer; they are joined the same
      assertThat(got.get(key).newest()).as("newest sequence of %s", key).isLessThanOrEqualTo(kv.newest());
      if (!compacted) {
        assertThat(got.get(key).newest()).as("newest sequence of %s", key).isEqualTo(kv.newest());
      }
    });
  }

  /** The versions topic's records for {@code events}: each accepted event's changes, in order. */
  private static List<VersionChange> topic(DimensionSpec customers, List<Integer> events) {
    IncrementalHistory history = new IncrementalHistory(customers);
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    List<VersionChange> out = new ArrayList<>();
    for (int x : events) {
      long customer = x % 3;
      int second = (x / 3) % 20;
      ChangeEvent e = (x / 60) % 5 == 0 ? EnrichmentFixtures.delete(customer, second)
          : EnrichmentFixtures.upsert(customer, second, "n" + (x / 1200) % 2, "c" + (x / 300) % 2,
              "t" + (x / 600) % 2);
      if (history.apply(store, e) instanceof ApplyResult.Applied a) {
        out.addAll(a.changes());
      }
    }
    return out;
  }

  /** The last record per version, in log order, as a compacted topic keeps it (a retraction's too). */
  private static List<VersionChange> compact(List<VersionChange> records) {
    Map<VersionId, Integer> last = new HashMap<>();
    for (int i = 0; i < records.size(); i++) {
      last.put(records.get(i).id(), i);
    }
    List<VersionChange> out = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      if (last.get(records.get(i).id()) == i) {
        out.add(records.get(i));
      }
    }
    return out;
  }

  /** The per-key versions of a versions store, by business key. */
  private static Map<String, EnrichmentState.KeyVersions> versions(InMemorySortedBytesStore store,
      EnrichmentState state) {
    EventJson keys = new EventJson(EnrichmentFixtures.customers(Long.MAX_VALUE));
    Map<String, EnrichmentState.KeyVersions> out = new HashMap<>();
    store.range(new byte[] {'v'}, new byte[] {'v' + 1}).forEach(e -> {
      byte[] kb = Arrays.copyOfRange(e.getKey(), 1, e.getKey().length);
      out.put(new String(kb, StandardCharsets.UTF_8), state.decodeVersions(keys.key(kb), e.getValue()));
    });
    return out;
  }
}
