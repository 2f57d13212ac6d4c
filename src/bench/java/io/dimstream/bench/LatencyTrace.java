package io.dimstream.bench;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Produce → visible latency over the run, per bucket of produce time: shows whether a tail is periodic (commits,
 * GC) or comes from the start of a run (assignment, first transaction, JIT).
 */
final class LatencyTrace {
  private LatencyTrace() {}

  /** One bucket: records whose change was produced in it, and their latency percentiles in ms. */
  record Bucket(long startMs, int records, long p50, long p99, long max) {}

  /** Buckets of {@code widthMs} from the first produce time; the arrays are aligned per output record. */
  static Map<Long, Bucket> buckets(long[] producedAt, long[] latencies, long widthMs) {
    if (producedAt.length == 0) {
      return Map.of();
    }
    long first = Arrays.stream(producedAt).min().orElseThrow();
    Map<Long, long[]> grouped = new TreeMap<>();
    Map<Long, Integer> sizes = new TreeMap<>();
    for (int i = 0; i < producedAt.length; i++) {
      long b = (producedAt[i] - first) / widthMs * widthMs;
      long[] arr = grouped.computeIfAbsent(b, x -> new long[16]);
      int n = sizes.getOrDefault(b, 0);
      if (n == arr.length) {
        arr = Arrays.copyOf(arr, n * 2);
        grouped.put(b, arr);
      }
      arr[n] = latencies[i];
      sizes.put(b, n + 1);
    }
    Map<Long, Bucket> out = new TreeMap<>();
    grouped.forEach((b, arr) -> {
      long[] sorted = Arrays.copyOf(arr, sizes.get(b));
      Arrays.sort(sorted);
      out.put(b, new Bucket(b, sorted.length, Figures.percentile(sorted, 50), Figures.percentile(sorted, 99),
          sorted[sorted.length - 1]));
    });
    return out;
  }

  /** The latencies, sorted, of the records whose change was produced at or after {@code fromMillis}. */
  static long[] since(long[] producedAt, long[] latencies, long fromMillis) {
    long[] out = new long[latencies.length];
    int n = 0;
    for (int i = 0; i < latencies.length; i++) {
      if (producedAt[i] >= fromMillis) {
        out[n++] = latencies[i];
      }
    }
    out = Arrays.copyOf(out, n);
    Arrays.sort(out);
    return out;
  }

  /** One line per bucket on stderr (the benchmark's log), so the figures on stdout stay one JSON line each. */
  static void print(String run, long[] producedAt, long[] latencies, long widthMs) {
    StringBuilder sb = new StringBuilder("latency trace " + run + " (bucket of produce time, ms: records p50 p99 max)\n");
    buckets(producedAt, latencies, widthMs).values().forEach(b -> sb.append(String.format("  %6d: %5d %5d %5d %5d%n",
        b.startMs(), b.records(), b.p50(), b.p99(), b.max())));
    System.err.print(sb);
  }
}
