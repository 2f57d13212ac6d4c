package io.dimstream.table.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FileMapTest {
  @Test
  void shouldIterateInTheOrderOfALinkedHashMapGivenTheSamePutsAndRemoves() {
    Random random = new Random(7);
    Map<String, Integer> model = new LinkedHashMap<>();
    FileMap<Integer> map = FileMap.empty();
    for (int i = 0; i < 5_000; i++) {
      String key = "f" + random.nextInt(300);
      if (random.nextInt(3) == 0) {
        model.remove(key);
        map = map.without(key);
      } else {
        model.put(key, i);
        map = map.with(key, i);
      }
    }
    assertThat(new ArrayList<>(map.entrySet())).containsExactlyElementsOf(new ArrayList<>(model.entrySet()));
    assertThat(map).isEqualTo(model);
    assertThat(map.size()).isEqualTo(model.size());
  }

  @Test
  void shouldLeaveTheMapItWasBuiltFromAsItWas() {
    FileMap<String> v1 = FileMap.<String>empty().with("a", "a1").with("b", "b1");
    FileMap<String> v2 = v1.with("a", "a2").without("b").with("c", "c1");

    assertThat(v1).containsExactly(Map.entry("a", "a1"), Map.entry("b", "b1"));
    assertThat(v2).containsExactly(Map.entry("a", "a2"), Map.entry("c", "c1"));
    assertThat(v2.get("b")).isNull();
    assertThat(v2.containsKey("b")).isFalse();
  }

  @Test
  void shouldRefuseToBeChangedInPlace() {
    Map<String, String> map = FileMap.<String>empty().with("a", "a1");
    List<Runnable> changes = List.of(() -> map.put("b", "b1"), () -> map.remove("a"), map::clear,
        () -> map.entrySet().iterator().remove());
    for (Runnable change : changes) {
      try {
        change.run();
      } catch (UnsupportedOperationException | IllegalStateException expected) {
        continue;
      }
      throw new AssertionError("the map was changed in place");
    }
    assertThat(map).containsExactly(Map.entry("a", "a1"));
  }
}
