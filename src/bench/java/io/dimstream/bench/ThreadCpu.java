package io.dimstream.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of this JVM's threads whose names contain a marker (an application id, a compactor's name), so a
 * benchmark on a shared, loaded machine reports CPU per event, which the load does not inflate as it does wall time.
 * Threads that ended between two readings are lost; the ones measured here live as long as the app.
 */
final class ThreadCpu {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private ThreadCpu() {}

  /** Nanoseconds of CPU per thread id, for the live threads whose name contains {@code marker}. */
  static Map<Long, Long> read(String marker) {
    Map<Long, Long> out = new HashMap<>();
    for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (t != null && t.getThreadName().contains(marker)) {
        long cpu = THREADS.getThreadCpuTime(t.getThreadId());
        if (cpu >= 0) {
          out.put(t.getThreadId(), cpu);
        }
      }
    }
    return out;
  }

  /** CPU nanoseconds spent since {@code before} by the threads named by {@code marker}, new threads counted whole. */
  static long since(Map<Long, Long> before, String marker) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : read(marker).entrySet()) {
      sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    return sum;
  }
}
