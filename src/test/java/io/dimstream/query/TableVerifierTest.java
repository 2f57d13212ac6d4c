package io.dimstream.query;

import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static io.dimstream.query.QueryFixtures.customer;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class TableVerifierTest {

  @Test
  void shouldAcceptTheReferenceFoldOfAGeneratedStream() {
    QueryFixtures.Generated g = QueryFixtures.generate(3, 200, 5_000);
    TableVerifier.Report r = TableVerifier.verify(new ListVersionSource(CUSTOMERS, g.versions()));
    assertThat(r.ok()).isTrue();
    assertThat(r.rows()).isEqualTo(g.versions().size());
    assertThat(r.keys()).isEqualTo(g.versions().stream().map(Version::key).distinct().count());
  }

  @Test
  void shouldNameKeysWithOverlapsTwoOpenVersionsOrAWrongIsCurrent() {
    List<Version> rows = List.of(
        customer(1, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "Paris", "gold", "A"),
        customer(1, "2026-01-04T00:00:00Z", null, "Lyon", "gold", "A"),
        customer(2, "2026-01-01T00:00:00Z", null, "Nice", "gold", "B"),
        customer(2, "2026-01-02T00:00:00Z", null, "Nice", "silver", "B"),
        customer(3, "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "Metz", "gold", "C"),
        customer(4, "2026-01-01T00:00:00Z", null, "Brest", "gold", "D"));
    VersionSource source = new ListVersionSource(CUSTOMERS, rows) {
      @Override
      public Stream<StoredVersion> storedRows() {
        // key 3's closed version is stored with is_current = true
        return scan(ScanHints.ALL).map(v -> new StoredVersion(v, v.isCurrent() || v.key().equals(BusinessKey.of(3L))));
      }
    };
    TableVerifier.Report r = TableVerifier.verify(source);
    assertThat(r.ok()).isFalse();
    assertThat(r.violations()).extracting(TableVerifier.Violation::key).containsOnly(
        BusinessKey.of(1L), BusinessKey.of(2L), BusinessKey.of(3L));
    assertThat(r.violations()).filteredOn(v -> v.key().equals(BusinessKey.of(2L)))
        .extracting(TableVerifier.Violation::problem).anyMatch(p -> p.contains("2 versions are open"));
    assertThat(r.violations()).filteredOn(v -> v.key().equals(BusinessKey.of(1L)))
        .extracting(TableVerifier.Violation::problem).anyMatch(p -> p.contains("overlap"));
    assertThat(r.violations()).filteredOn(v -> v.key().equals(BusinessKey.of(3L)))
        .extracting(TableVerifier.Violation::problem).anyMatch(p -> p.contains("is_current=true"));
  }
}
