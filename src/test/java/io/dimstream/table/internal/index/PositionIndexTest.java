package io.dimstream.table.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PositionIndexTest {
  private static byte[] id(long key, long from) {
    return IdentityBytes.of(BusinessKey.of(key), Sequence.of(from));
  }

  @Test
  void shouldAnswerLikeAMapThroughPutsRemovesAndGrowth() {
    // a small initial size forces rehashes; removals leave tombstones that later puts reuse
    PositionIndex index = new PositionIndex(16);
    Map<Long, Long> model = new HashMap<>();
    Random random = new Random(7);
    for (int op = 0; op < 200_000; op++) {
      long key = random.nextInt(20_000);
      if (random.nextInt(4) == 0) {
        assertThat(index.remove(id(key, 1))).isEqualTo(model.remove(key) != null);
      } else {
        long location = PositionIndex.location(random.nextInt(100), random.nextInt(1 << 20));
        index.put(id(key, 1), location);
        model.put(key, location);
      }
    }
    assertThat(index.size()).isEqualTo(model.size());
    for (long key = 0; key < 20_000; key++) {
      assertThat(index.get(id(key, 1))).as("key %d", key).isEqualTo(model.getOrDefault(key, -1L));
      assertThat(index.get(id(key, 2))).isEqualTo(-1L);
    }
  }

  @Test
  void shouldReplaceTheLocationOfAnIdentityAlreadyHeld() {
    PositionIndex index = new PositionIndex(4);
    index.put(id(1, 1), PositionIndex.location(0, 5));
    index.put(id(1, 1), PositionIndex.location(1, 6));

    assertThat(index.size()).isEqualTo(1);
    assertThat(index.get(id(1, 1))).isEqualTo(PositionIndex.location(1, 6));
  }
}
