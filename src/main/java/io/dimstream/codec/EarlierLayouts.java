package io.dimstream.codec;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each value of a state record written under an earlier attribute layout goes in the spec's own, found by the
 * record's attribute count (columns are only ever added, so each earlier layout has fewer). Immutable.
 */
final class EarlierLayouts {
  private final StateLayouts layouts;
  private final int current;
  /** Per attribute count, the current position of each value; null where no layout of that count is known. */
  private final int[][] byCount;
  /** Attribute counts of every known layout: the current one first, then the earlier ones newest first. */
  private final int[] counts;

  /**
   * @throws IllegalArgumentException when an earlier layout names a column that is not an attribute of
   *     {@code spec}, has as many attributes as {@code spec} in another order, or shares its count with another
   */
  EarlierLayouts(DimensionSpec spec, StateLayouts earlier) {
    this.layouts = earlier;
    List<String> now = StateLayouts.layoutOf(spec);
    this.current = now.size();
    Map<String, Integer> position = new HashMap<>();
    for (int i = 0; i < now.size(); i++) {
      position.put(now.get(i), i);
    }
    int[][] found = new int[0][];
    List<Integer> known = new ArrayList<>(List.of(current));
    for (int l = earlier.earlier().size() - 1; l >= 0; l--) {
      List<String> layout = earlier.earlier().get(l);
      if (layout.equals(now)) {
        continue; // the current layout (a spec evolved back and forth in tracking only): read as it is
      }
      if (layout.size() >= now.size()) {
        throw new IllegalArgumentException("the earlier attribute layout " + layout + " has " + layout.size()
            + " columns, the spec's " + now + " only " + now.size() + "; columns are only ever added");
      }
      if (found.length > layout.size() && found[layout.size()] != null) {
        throw new IllegalArgumentException("two earlier attribute layouts have " + layout.size() + " columns: "
            + layout + " cannot be told apart from another");
      }
      int[] to = new int[layout.size()];
      for (int i = 0; i < to.length; i++) {
        Integer at = position.get(layout.get(i));
        if (at == null) {
          throw new IllegalArgumentException("the earlier attribute layout " + layout + " holds '" + layout.get(i)
              + "', which is no attribute column of the spec " + now);
        }
        to[i] = at;
      }
      if (found.length <= layout.size()) {
        found = Arrays.copyOf(found, layout.size() + 1);
      }
      found[layout.size()] = to;
      known.add(layout.size());
    }
    this.byCount = found;
    this.counts = known.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * The current position of each value of a record of {@code n} attributes (an earlier layout's count).
   *
   * @throws IllegalArgumentException naming {@code what} and the fix when no earlier layout has {@code n} attributes
   */
  int[] positions(int n, String what) {
    int[] to = n < byCount.length ? byCount[n] : null;
    if (to == null) {
      throw new IllegalArgumentException(what + " of the topology's state or repartition topic holds " + n
          + " attributes, but the spec has " + current + " and no earlier layout of " + n + " columns is known"
          + " (earlier layouts: " + layouts.earlier() + ", from the table property " + StateLayouts.PROPERTY
          + "); it was written under a spec the table does not record. Fix: run with the spec the state was written"
          + " with, or with the table that spec's service evolved");
    }
    return to;
  }

  /** The attribute counts of every known layout, the current one first, then the earlier ones newest first. */
  int[] counts() {
    return counts.clone();
  }

  /** The earlier layouts, for messages. */
  List<List<String>> earlier() {
    return layouts.earlier();
  }
}
