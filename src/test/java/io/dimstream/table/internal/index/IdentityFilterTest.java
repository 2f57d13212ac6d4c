package io.dimstream.table.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import org.junit.jupiter.api.Test;

class IdentityFilterTest {

  private static long fingerprint(String key, long validFrom) {
    return IdentityFilter.fingerprint(IdentityBytes.of(BusinessKey.of(key), Sequence.of(validFrom)));
  }

  @Test
  void shouldAnswerMaybeForEveryIdentityItHoldsAndNoForAlmostAllOthers() {
    int n = 20_000;
    long[] held = new long[n];
    for (int i = 0; i < n; i++) {
      held[i] = fingerprint("c" + (i % 2_000), 1_700_000_000_000_000L + i);
    }
    IdentityFilter filter = IdentityFilter.of(held, n, 0);

    for (int i = 0; i < n; i++) {
      assertThat(filter.mightContain(held[i])).as("identity %d", i).isTrue();
    }
    int falsePositives = 0;
    for (int i = 0; i < n; i++) {
      // same keys, valid_from one microsecond later: the near misses a commit of new versions asks about
      if (filter.mightContain(fingerprint("c" + (i % 2_000), 1_700_000_000_000_001L + n + i))) {
        falsePositives++;
      }
    }
    assertThat(falsePositives).as("false positives of %d", n).isLessThan(n / 50);
  }

  @Test
  void shouldNotServeAFileWhoseDeletionVectorIsOlderThanTheFilters() {
    IdentityFilter filter = IdentityFilter.of(new long[] {fingerprint("a", 1)}, 1, 3);

    assertThat(filter.covers(3)).isTrue();
    assertThat(filter.covers(5)).as("more rows deleted since: the filter still holds every live row").isTrue();
    assertThat(filter.covers(2)).as("an older state of the file may have live rows the filter never saw").isFalse();
  }
}
