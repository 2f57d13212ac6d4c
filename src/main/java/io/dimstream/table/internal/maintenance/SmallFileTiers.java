package io.dimstream.table.internal.maintenance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Which small files a background compaction cycle merges: the smallest ones, each at most twice the rows of all
 * picked before it, so a merge writes at least 1.5 times its largest input and a row is rewritten a few times (about
 * log(small-file rows / commit rows)) before its file stops being small, not once per commit.
 */
final class SmallFileTiers {
  private SmallFileTiers() {}

  /**
   * The small files worth merging now, smallest first.
   *
   * @param small    files under the small-file threshold
   * @param live     live rows of a file
   * @param rewritten live rows the cycle rewrites anyway (files with many deleted rows): small files up to that size
   *                 join them
   */
  static <F> List<F> pick(List<F> small, ToLongFunction<F> live, long rewritten) {
    List<F> sorted = new ArrayList<>(small);
    sorted.sort(Comparator.comparingLong(live));
    List<F> out = new ArrayList<>();
    long sum = rewritten;
    for (F f : sorted) {
      long n = live.applyAsLong(f);
      // Merging every small file after each commit rewrote the whole small partition once per commit (its cost grew
      // with the table); a file much larger than all below it waits until they have grown near its size.
      boolean first = out.isEmpty() && sum == 0;
      if (!first && n > 2 * sum) {
        break;
      }
      out.add(f);
      sum += n;
    }
    return out;
  }
}
