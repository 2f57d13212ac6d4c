package io.dimstream.table.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.table.internal.actions.AddFile;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PositionIndexTest {
  @TempDir
  Path dir;

  private static byte[] id(long key, long from) {
    return IdentityBytes.of(BusinessKey.of(key), Sequence.of(from));
  }

  static Stream<Arguments> kinds() {
    Function<Path, PositionIndex> heap = d -> new HeapPositionIndex(16);
    Function<Path, PositionIndex> disk = PersistedPositionIndex::open;
    return Stream.of(Arguments.of("heap", heap), Arguments.of("disk", disk));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kinds")
  void shouldAnswerLikeAMapThroughPutsRemovesAndGrowth(String kind, Function<Path, PositionIndex> make)
      throws Exception {
    // a small initial size forces rehashes; removals leave tombstones that later puts reuse
    PositionIndex index = make.apply(dir.resolve(kind));
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
    assertThat(index.size()).isEqualTo((long) model.size());
    for (long key = 0; key < 20_000; key++) {
      assertThat(index.get(id(key, 1))).as("key %d", key).isEqualTo(model.getOrDefault(key, -1L));
      assertThat(index.get(id(key, 2))).isEqualTo(-1L);
    }
    if (index instanceof AutoCloseable c) {
      c.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kinds")
  void shouldReplaceTheLocationOfAnIdentityAlreadyHeld(String kind, Function<Path, PositionIndex> make)
      throws Exception {
    PositionIndex index = make.apply(dir.resolve(kind));
    index.put(id(1, 1), PositionIndex.location(0, 5));
    index.put(id(1, 1), PositionIndex.location(1, 6));

    assertThat(index.size()).isEqualTo(1L);
    assertThat(index.get(id(1, 1))).isEqualTo(PositionIndex.location(1, 6));
    if (index instanceof AutoCloseable c) {
      c.close();
    }
  }

  @Test
  void shouldFindItsEntriesFilesAndRecordAfterReopening() {
    AddFile a = new AddFile("is_current=true/a.parquet", Map.of("is_current", "true"), 10, 1, true, null, null);
    AddFile b = new AddFile("is_current=true/b.parquet", Map.of("is_current", "true"), 20, 2, true, null, null);
    try (PersistedPositionIndex index = PersistedPositionIndex.open(dir)) {
      assertThat(index.reflected()).as("a new index reflects nothing").isNull();
      index.put(id(1, 1), PositionIndex.location(index.fileId(a.path()), 3));
      index.put(id(2, 1), PositionIndex.location(index.fileId(b.path()), 4));
      index.record("table-1", 7, 7, Map.of(a.path(), a, b.path(), b));
      index.remove(id(2, 1));
      index.record("table-1", 8, 8, Map.of(a.path(), a));
    }
    try (PersistedPositionIndex index = PersistedPositionIndex.open(dir)) {
      PersistedPositionIndex.Reflected r = index.reflected();
      assertThat(r.tableId()).isEqualTo("table-1");
      assertThat(r.version()).isEqualTo(8);
      assertThat(r.files()).containsOnlyKeys(a.path());
      assertThat(index.file(index.get(id(1, 1)))).isEqualTo(a.path());
      assertThat(PositionIndex.positionOf(index.get(id(1, 1)))).isEqualTo(3);
      assertThat(index.get(id(2, 1))).isEqualTo(-1L);
      assertThat(index.size()).isEqualTo(1L);
      index.forget();
    }
    try (PersistedPositionIndex index = PersistedPositionIndex.open(dir)) {
      assertThat(index.reflected()).as("a forgotten index must be rebuilt").isNull();
    }
  }

  @Test
  void shouldKeepNothingOfTheOldEntriesOnceWiped() {
    PersistedPositionIndex index = PersistedPositionIndex.open(dir);
    index.put(id(1, 1), PositionIndex.location(index.fileId("x.parquet"), 1));
    index.record("t", 1, 1, Map.of());
    PersistedPositionIndex wiped = index.wiped();
    assertThat(wiped.get(id(1, 1))).isEqualTo(-1L);
    assertThat(wiped.reflected()).isNull();
    assertThat(wiped.fileId("y.parquet")).as("file ids start again").isZero();
    wiped.close();
  }
}
