package io.dimstream.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * CPU time of this JVM's threads whose names contain a marker (an application id, a compactor's name), so a
 * benchmark on a shared, loaded machine reports CPU per event, which the load does not inflate as it does wall time.
 * Threads that ended between two readings are lost; the ones measured here live as long as the app.
 */
final class ThreadCpu {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** Digit runs in a thread name: {@code kafka-scheduler-3} and {@code kafka-scheduler-7} are one group. */
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");
  /** A client id's UUID (a stream thread's producer), before its digits are grouped. */
  private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private ThreadCpu() {}

  /** Nanoseconds of CPU and the name of every live thread of this JVM, by thread id. */
  static Map<Long, Sample> all() {
    Map<Long, Sample> out = new HashMap<>();
    for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (t != null) {
        long cpu = THREADS.getThreadCpuTime(t.getThreadId());
        if (cpu >= 0) {
          out.put(t.getThreadId(), new Sample(t.getThreadName(), cpu));
        }
      }
    }
    return out;
  }

  /** One thread's name and CPU nanoseconds at a reading. */
  record Sample(String name, long cpuNanos) {}

  /**
   * CPU nanoseconds spent since {@code before} by every thread of this JVM, summed by thread group: the name with
   * digit runs replaced by {@code N}, so the four request handler threads of the broker are one group. Threads that
   * ended since {@code before} are lost, new ones counted whole. Sorted by group name.
   */
  static Map<String, Long> byGroup(Map<Long, Sample> before) {
    Map<String, Long> out = new TreeMap<>();
    for (Map.Entry<Long, Sample> e : all().entrySet()) {
      Sample was = before.get(e.getKey());
      long spent = e.getValue().cpuNanos() - (was == null ? 0 : was.cpuNanos());
      if (spent > 0) {
        out.merge(group(e.getValue().name()), spent, Long::sum);
      }
    }
    return out;
  }

  /** A thread's group: its name with digit runs replaced by {@code N}. */
  static String group(String threadName) {
    return DIGITS.matcher(UUID.matcher(threadName).replaceAll("UUID")).replaceAll("N");
  }

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
