package io.dimstream.query;

import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static io.dimstream.query.QueryFixtures.customer;
import static io.dimstream.query.QueryFixtures.micros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import io.dimstream.types.Column;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class HistoryQueriesTest {
  private static final List<String> ATTRS = CUSTOMERS.attributeColumns().stream().map(Column::name).toList();

  private static final List<Version> PARIS_LYON = List.of(
      customer(1, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "Paris", "gold", "Ann"),
      customer(1, "2026-01-05T00:00:00Z", "2026-01-09T00:00:00Z", "Lyon", "gold", "Ann"),
      customer(1, "2026-01-12T00:00:00Z", null, "Lyon", "silver", "Ann B"),
      customer(2, "2026-01-03T00:00:00Z", null, "Nice", "gold", "Bob"));

  private final ListVersionSource source = new ListVersionSource(CUSTOMERS, PARIS_LYON);
  private final HistoryQueries queries = new HistoryQueries(source);

  private List<Version> asOf(String t, Set<BusinessKey> keys, List<AttributeFilter> where) {
    try (Stream<Version> s = queries.asOf(micros(t), keys, where)) {
      return s.sorted(BusinessKeys.VERSION_ORDER).toList();
    }
  }

  @Test
  void shouldTreatValidToAsExclusiveAndIncludeOpenVersions() {
    assertThat(asOf("2026-01-05T00:00:00Z", Set.of(), List.of()))
        .containsExactly(PARIS_LYON.get(1), PARIS_LYON.get(3));
    assertThat(asOf("2026-01-04T23:59:59.999999Z", Set.of(), List.of()))
        .containsExactly(PARIS_LYON.get(0), PARIS_LYON.get(3));
    assertThat(asOf("2030-01-01T00:00:00Z", Set.of(), List.of()))
        .containsExactly(PARIS_LYON.get(2), PARIS_LYON.get(3));
  }

  @Test
  void shouldReturnNothingForAKeyDeletedAtT() {
    assertThat(queries.asOf(BusinessKey.of(1L), micros("2026-01-10T00:00:00Z"))).isEmpty();
    assertThat(queries.asOf(BusinessKey.of(1L), micros("2026-01-12T00:00:00Z"))).contains(PARIS_LYON.get(2));
  }

  @Test
  void shouldPassKeysAndTimeAsScanHints() {
    asOf("2026-01-02T00:00:00Z", Set.of(BusinessKey.of(2L)), List.of());
    assertThat(source.hints).containsExactly(
        ScanHints.validAt(Set.of(BusinessKey.of(2L)), micros("2026-01-02T00:00:00Z")));
  }

  @Test
  void shouldFilterOnAttributesAndKeys() {
    AttributeFilter gold = AttributeFilter.parse(CUSTOMERS, "tier=gold");
    assertThat(asOf("2026-01-06T00:00:00Z", Set.of(), List.of(gold)))
        .containsExactly(PARIS_LYON.get(1), PARIS_LYON.get(3));
    assertThat(asOf("2026-01-06T00:00:00Z", Set.of(), List.of(gold, AttributeFilter.parse(CUSTOMERS, "city=Nice"))))
        .containsExactly(PARIS_LYON.get(3));
    assertThat(asOf("2026-01-06T00:00:00Z", Set.of(), List.of(AttributeFilter.parse(CUSTOMERS, "customer_id=1"))))
        .containsExactly(PARIS_LYON.get(1));
  }

  @Test
  void shouldRejectFilterOnUnknownColumnOrBadValue() {
    assertThatThrownBy(() -> AttributeFilter.parse(CUSTOMERS, "town=Paris"))
        .isInstanceOf(QueryException.class).hasMessageContaining("'town'").hasMessageContaining("city");
    assertThatThrownBy(() -> AttributeFilter.parse(CUSTOMERS, "customer_id=abc"))
        .isInstanceOf(QueryException.class).hasMessageContaining("long");
    assertThatThrownBy(() -> AttributeFilter.parse(CUSTOMERS, "city"))
        .isInstanceOf(QueryException.class).hasMessageContaining("col=value");
  }

  @Test
  void shouldListHistoryOldestFirst() {
    assertThat(queries.history(BusinessKey.of(1L))).containsExactly(PARIS_LYON.get(0), PARIS_LYON.get(1),
        PARIS_LYON.get(2));
    assertThat(queries.history(BusinessKey.of(3L))).isEmpty();
    assertThat(queries.current(BusinessKey.of(1L))).contains(PARIS_LYON.get(2));
  }

  @Test
  void shouldReportInsertsUpdatesAndDeletesWithChangedAttributes() {
    List<Change> changes = queries.changes(micros("2026-01-01T00:00:00Z"), micros("2026-01-12T00:00:00Z"), Set.of());
    assertThat(changes).extracting(ReferenceAnswers::text).containsExactly(
        "1@" + micros("2026-01-01T00:00:00Z") + " INSERT [city, tier, name]",
        "2@" + micros("2026-01-03T00:00:00Z") + " INSERT [city, tier, name]",
        "1@" + micros("2026-01-05T00:00:00Z") + " UPDATE [city]",
        "1@" + micros("2026-01-09T00:00:00Z") + " DELETE [city, tier, name]");
    assertThat(changes.get(2).before()).isEqualTo(PARIS_LYON.get(0));
    assertThat(changes.get(2).after()).isEqualTo(PARIS_LYON.get(1));
    assertThat(changes.get(3).after()).isNull();
  }

  @Test
  void shouldRejectAnEmptyRange() {
    assertThatThrownBy(() -> queries.changes(5, 5, Set.of()))
        .isInstanceOf(QueryException.class)
        .hasMessageContaining("--from must be before --to")
        .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.BAD_INPUT);
  }

  @Test
  void shouldMatchTheReferenceFoldFor50RandomTimesAndKeys() {
    QueryFixtures.Generated g = QueryFixtures.generate(7, 500, 20_000);
    HistoryQueries q = new HistoryQueries(new ListVersionSource(CUSTOMERS, shuffled(g.versions(), 1)));
    Random rnd = new Random(11);
    long min = g.versions().get(0).validFrom().first();
    long max = g.versions().stream().mapToLong(v -> v.validFrom().first()).max().orElseThrow();
    for (int i = 0; i < 50; i++) {
      long t = min - 1000 + (long) (rnd.nextDouble() * (max - min + 2000));
      BusinessKey key = g.versions().get(rnd.nextInt(g.versions().size())).key();
      try (Stream<Version> s = q.asOf(t, Set.of(), List.of())) {
        assertThat(s.sorted(BusinessKeys.VERSION_ORDER).toList()).as("as of %d", t)
            .isEqualTo(ReferenceAnswers.asOf(g.versions(), t));
      }
      assertThat(q.asOf(key, t)).as("key %s as of %d", key, t)
          .isEqualTo(ReferenceAnswers.asOf(ReferenceAnswers.history(g.versions(), key), t).stream().findFirst());
      assertThat(q.history(key)).isEqualTo(ReferenceAnswers.history(g.versions(), key));
      long t2 = t + (long) (rnd.nextDouble() * (max - min) / 10) + 1;
      assertThat(q.changes(t, t2, Set.of())).extracting(ReferenceAnswers::text)
          .isEqualTo(ReferenceAnswers.changes(g.versions(), t, t2, ATTRS));
    }
  }

  static List<Version> shuffled(List<Version> in, long seed) {
    List<Version> out = new ArrayList<>(in);
    java.util.Collections.shuffle(out, new Random(seed));
    return out;
  }
}
