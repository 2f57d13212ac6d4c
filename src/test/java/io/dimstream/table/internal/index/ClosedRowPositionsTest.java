package io.dimstream.table.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClosedRowPositionsTest {

  private static byte[] identity(String key, long validFrom) {
    return IdentityBytes.of(BusinessKey.of(key), Sequence.of(validFrom));
  }

  private static long find(ClosedRowPositions p, byte[] identity) {
    return p.find(IdentityFilter.fingerprint(identity), ClosedRowPositions.check(identity));
  }

  private static ClosedRowPositions positions(int rows, long firstPosition) {
    ClosedRowPositions.Builder b = new ClosedRowPositions.Builder(4);
    // added out of row order, as a file read after a deletion vector skips rows
    for (int i = rows - 1; i >= 0; i--) {
      b.add(identity("k" + (i % 500), 1_700_000_000_000_000L + i), firstPosition + 2L * i);
    }
    return b.build(0);
  }

  private static AddFile file(String path, long deletedRows) {
    AddFile a = new AddFile(path, Map.of(), 1, 1, true, null);
    return deletedRows == 0 ? a : a.withDeletionVector(
        new DeletionVectorDescriptor(DeletionVectorDescriptor.INLINE, "x", null, 1, deletedRows), null);
  }

  @Test
  void shouldFindTheRowPositionOfEveryIdentityItHoldsAndNoOther() {
    int n = 20_000;
    ClosedRowPositions p = positions(n, 3);

    for (int i = 0; i < n; i++) {
      assertThat(find(p, identity("k" + (i % 500), 1_700_000_000_000_000L + i))).as("row %d", i)
          .isEqualTo(3 + 2L * i);
    }
    for (int i = 0; i < n; i++) {
      // the same keys one microsecond later: the new versions a commit asks about beside its corrections
      assertThat(find(p, identity("k" + (i % 500), 1_700_000_000_000_000L + n + i)))
          .isEqualTo(ClosedRowPositions.ABSENT);
    }
    assertThat(p.bytes()).isEqualTo(16L * n);
  }

  @Test
  void shouldTurnIntoAFilterThatStillAnswersMaybeForEveryIdentity() {
    ClosedRowPositions p = positions(1_000, 0);
    IdentityFilter f = p.toFilter();

    for (int i = 0; i < 1_000; i++) {
      assertThat(f.mightContain(IdentityFilter.fingerprint(identity("k" + (i % 500), 1_700_000_000_000_000L + i))))
          .isTrue();
    }
    assertThat(f.bytes()).isLessThan(p.bytes() / 4);
  }

  @Test
  void shouldKeepPositionsWithinTheirBudgetAndTurnTheLeastUsedIntoFilters() {
    ClosedFileFilters filters = new ClosedFileFilters(2 * 16_000);
    filters.put(file("a", 0), positions(1_000, 0));
    filters.put(file("b", 0), positions(1_000, 0));
    filters.positions(file("a", 0)); // a is used last: b is the eldest
    filters.put(file("c", 0), positions(1_000, 0));

    assertThat(filters.positionBytes()).isLessThanOrEqualTo(2 * 16_000);
    assertThat(filters.positions(file("b", 0))).isNull();
    assertThat(filters.get(file("b", 0))).as("b falls back to its filter").isNotNull();
    assertThat(filters.positions(file("a", 0))).isNotNull();
    assertThat(filters.positions(file("c", 0))).isNotNull();

    filters.retain(Set.of("c"));
    assertThat(filters.positionBytes()).isEqualTo(16_000);
    assertThat(filters.bytes()).isEqualTo(16_000);
  }

  @Test
  void shouldNotServeAFileWhoseRowsWereReadUnderANewerDeletionVector() {
    ClosedFileFilters filters = new ClosedFileFilters(1 << 20);
    ClosedRowPositions.Builder b = new ClosedRowPositions.Builder(1);
    b.add(identity("a", 1), 0);
    filters.put(file("f", 3), b.build(3));

    assertThat(filters.positions(file("f", 5))).isNotNull();
    assertThat(filters.positions(file("f", 2))).as("an older state may have live rows never read").isNull();
  }
}
