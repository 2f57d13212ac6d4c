package io.dimstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import io.dimstream.fixtures.AnyNumber;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.ChangeEvent;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The SCD2 contract through the real topology: a random event set, delivered in a random order that keeps the
 * relative order of events with the same key and sequence, gives exactly the reference fold.
 */
class TopologyContractProperties {
  private static final DimensionSpec SPEC = DimensionSpec.builder("props")
      .column("id", "long").column("seq", "long").column("a", "string").column("b", "string").column("op", "string")
      .key("id").sequence("seq").track("a").delete(new DeleteRule.ColumnEquals("op", "d")).build();

  @Test
  void anyArrivalOrderGivesTheReferenceFold() {
    // each example runs the topology; a bounded shrink keeps a failing run to minutes
    qt().withExamples(40).withShrinkCycles(50).forAll(longs().all(), AnyNumber.intsBetween(1, 300))
        .checkAssert(TopologyContractProperties::foldsAsTheReference);
  }

  private static void foldsAsTheReference(long seed, int events) {
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(SPEC, seed).keys(6).events(events)
        .late(0.2).duplicates(0.1).deletes(0.1).sameSequence(0.1).generate();
    List<Integer> order = stableShuffle(stream.events(), new Random(seed));
    List<ChangeEvent> arrival = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    for (int i : order) {
      arrival.add(stream.events().get(i));
      lines.add(stream.jsonLines().get(i));
    }
    try (DimensionTestDriver driver = DimensionTestDriver.of(SPEC)) {
      driver.send(lines.toArray(String[]::new));
      assertThat(driver.versions()).containsExactlyElementsOf(Scd2Fold.fold(SPEC, arrival));
      driver.assertInvariants();
    }
  }

  /** A random permutation in which events of one (key, sequence) keep their relative order. */
  private static List<Integer> stableShuffle(List<ChangeEvent> events, Random rnd) {
    List<Integer> slots = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      slots.add(i);
    }
    Collections.shuffle(slots, rnd);
    // Reassign, within each (key, sequence) group, the group's shuffled slots in original order.
    java.util.Map<List<Object>, List<Integer>> groups = new java.util.LinkedHashMap<>();
    for (int i = 0; i < events.size(); i++) {
      groups.computeIfAbsent(List.of(events.get(i).key(), events.get(i).sequence()), k -> new ArrayList<>()).add(i);
    }
    Integer[] at = new Integer[events.size()];
    for (List<Integer> members : groups.values()) {
      List<Integer> positions = new ArrayList<>();
      members.forEach(m -> positions.add(slots.get(m)));
      Collections.sort(positions);
      for (int j = 0; j < members.size(); j++) {
        at[positions.get(j)] = members.get(j);
      }
    }
    return java.util.Arrays.asList(at);
  }
}
