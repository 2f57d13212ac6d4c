package io.dimstream.query;

import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.types.Column;
import io.dimstream.table.Operation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Query answers over a Delta table of about 100k versions equal the ones computed from the generated event list by
 * the reference fold, for 50 random times and keys, at the latest table version and at an older one.
 */
class QueryTableIT {
  private static final List<String> ATTRS = CUSTOMERS.attributeColumns().stream().map(Column::name).toList();

  @TempDir
  static Path dir;

  private static DeltaVersionTable table;
  private static List<Version> older;
  private static List<Version> latest;

  @BeforeAll
  static void writeTable() {
    List<ChangeEvent> events = ChangeStreams.random(CUSTOMERS, 2026).keys(10_000).events(120_000)
        .late(0.05).duplicates(0.02).deletes(0.02).generate().events();
    older = Scd2Fold.fold(CUSTOMERS, events.subList(0, events.size() / 2));
    latest = Scd2Fold.fold(CUSTOMERS, events);
    DeltaTable t = DeltaTable.create(dir.resolve("customers"), CUSTOMERS, Map.of());
    t.newCommit(Operation.WRITE).apply(upserts(older));
    t.newCommit(Operation.MERGE).apply(diff(older, latest));
    table = new DeltaVersionTable(DeltaTable.open(dir.resolve("customers")));
  }

  @Test
  void shouldHoldAbout100kVersions() {
    assertThat(latest.size()).isBetween(90_000, 130_000);
    assertThat(TableVerifier.verify(table.at(TimeTravel.LATEST)).ok()).isTrue();
  }

  @Test
  void shouldAnswerLikeTheReferenceFoldAtTheLatestVersion() {
    check(new HistoryQueries(table.at(TimeTravel.LATEST)), latest, 1);
  }

  @Test
  void shouldAnswerLikeTheReferenceFoldAtAnOlderVersion() {
    HistoryQueries q = new HistoryQueries(table.at(new TimeTravel.AtVersion(1)));
    assertThat(q.tableVersion()).isEqualTo(1);
    check(q, older, 2);
  }

  private static void check(HistoryQueries q, List<Version> expected, long seed) {
    Random rnd = new Random(seed);
    long min = expected.get(0).validFrom().first();
    long max = expected.stream().mapToLong(v -> v.validFrom().first()).max().orElseThrow();
    for (int i = 0; i < 50; i++) {
      long t = min - 60_000_000L + (long) (rnd.nextDouble() * (max - min + 120_000_000L));
      BusinessKey key = expected.get(rnd.nextInt(expected.size())).key();
      List<Version> keyHistory = ReferenceAnswers.history(expected, key);
      assertThat(q.history(key)).as("history of %s", key).isEqualTo(keyHistory);
      assertThat(q.asOf(key, t)).as("%s as of %d", key, t)
          .isEqualTo(ReferenceAnswers.asOf(keyHistory, t).stream().findFirst());
      if (i % 5 == 0) {
        try (Stream<Version> s = q.asOf(t, Set.of(), List.of())) {
          assertThat(s.sorted(BusinessKeys.VERSION_ORDER).toList()).as("as of %d", t)
              .isEqualTo(ReferenceAnswers.asOf(expected, t));
        }
        long t2 = t + (long) (rnd.nextDouble() * (max - min) / 20) + 1;
        assertThat(q.changes(t, t2, Set.of())).extracting(ReferenceAnswers::text)
            .isEqualTo(ReferenceAnswers.changes(expected, t, t2, ATTRS));
      }
    }
  }

  private static List<VersionChange> upserts(List<Version> versions) {
    List<VersionChange> out = new ArrayList<>(versions.size());
    versions.forEach(v -> out.add(new VersionChange.Upsert(v, v.isCurrent() ? ChangeKind.OPEN : ChangeKind.CLOSE)));
    return out;
  }

  /** The upserts and retractions that turn the table holding {@code from} into one holding {@code to}. */
  private static List<VersionChange> diff(List<Version> from, List<Version> to) {
    VersionsById before = new VersionsById();
    from.forEach(before::put);
    List<VersionChange> out = new ArrayList<>();
    for (Version v : to) {
      Version old = before.remove(v.id()).orElse(null);
      if (!v.equals(old)) {
        out.add(new VersionChange.Upsert(v, old == null ? ChangeKind.OPEN : ChangeKind.CORRECT));
      }
    }
    before.ids().forEach(id -> out.add(new VersionChange.Retraction(id.key(), id.validFrom())));
    return out;
  }
}
