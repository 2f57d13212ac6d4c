package io.dimstream.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Produce → table latencies of the run's version records, split by whether the change was sent while a fault was
 * in force, and each fault's recovery: seconds from its injection until every version record of a change sent
 * before it was in the table (how long the table lagged behind what it had been given when the fault struck).
 * The outside figures are also given without the run's first {@link #WARM_UP_MS}: the instances' first commits
 * (a cold JVM, the store's first round trips) are a start's cost, not the steady state's.
 */
record Latencies(long samples, long notVisible, long outsideSamples, long p99Outside, long p50Outside,
    long p99OutsideAfterWarmUp, long p99Inside, long max, double maxRecoverySeconds, String slowestRecovery) {
  static final long WARM_UP_MS = 30_000;

  static Latencies of(Visibility.Samples s, List<Fault> faults) {
    long[] produced = s.producedAt();
    long[] visible = s.visibleAt();
    List<Long> outside = new ArrayList<>();
    List<Long> inside = new ArrayList<>();
    List<Long> outsideAfterWarmUp = new ArrayList<>();
    long firstSent = Arrays.stream(produced).min().orElse(0);
    long notVisible = 0;
    long max = 0;
    for (int i = 0; i < produced.length; i++) {
      if (visible[i] < 0) {
        notVisible++;
        continue;
      }
      long latency = Math.max(0, visible[i] - produced[i]);
      max = Math.max(max, latency);
      boolean inFault = false;
      for (Fault f : faults) {
        if (produced[i] >= f.startMs() && produced[i] <= f.endMs()) {
          inFault = true;
          break;
        }
      }
      (inFault ? inside : outside).add(latency);
      if (!inFault && produced[i] >= firstSent + WARM_UP_MS) {
        outsideAfterWarmUp.add(latency);
      }
    }
    double maxRecovery = 0;
    String slowest = "none";
    for (Fault f : faults) {
      long latest = f.startMs();
      for (int i = 0; i < produced.length; i++) {
        if (produced[i] < f.startMs() && produced[i] > f.startMs() - 300_000) {
          latest = Math.max(latest, visible[i] < 0 ? Long.MAX_VALUE / 2 : visible[i]);
        }
      }
      double seconds = (latest - f.startMs()) / 1000.0;
      if (seconds > maxRecovery) {
        maxRecovery = seconds;
        slowest = f.kind().label + " " + f.target() + " (" + f.detail() + ")";
      }
    }
    long[] out = sorted(outside);
    long[] in = sorted(inside);
    return new Latencies(produced.length, notVisible, out.length, percentile(out, 99), percentile(out, 50),
        percentile(sorted(outsideAfterWarmUp), 99), percentile(in, 99), max, maxRecovery, slowest);
  }

  private static long[] sorted(List<Long> values) {
    long[] a = values.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(a);
    return a;
  }

  private static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return -1;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
