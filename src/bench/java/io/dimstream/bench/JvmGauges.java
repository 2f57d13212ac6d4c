package io.dimstream.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * CPU time and heap readings of this JVM, for the benchmarks that time work in their own thread; and the live heap of
 * a child JVM, read with {@code jcmd}.
 */
final class JvmGauges {
  private JvmGauges() {}

  /** CPU nanoseconds of the calling thread (on a shared machine steadier than wall time). */
  static long threadCpuNanos() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  /** CPU nanoseconds of the whole process, every thread. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Collects garbage and starts a new peak-heap measurement. */
  static void resetPeak() {
    System.gc();
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
  }

  /** The highest heap used since {@link #resetPeak}, in MiB (sum of the pools' peaks, an upper bound). */
  static long peakHeapMb() {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        sum += p.getPeakUsage().getUsed();
      }
    }
    return sum >> 20;
  }

  /** Heap used after a full collection, in MiB: what live objects retain. */
  static long retainedHeapMb() {
    System.gc();
    System.gc();
    Runtime r = Runtime.getRuntime();
    return (r.totalMemory() - r.freeMemory()) >> 20;
  }

  /** The machine's load average line ({@code /proc/loadavg}), or "unknown". */
  static String loadavg() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** {@code jcmd <pid> GC.class_histogram}: a full GC in that JVM, then its live objects by class. */
  static String classHistogram(long pid) throws Exception {
    java.nio.file.Path jcmd = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram").redirectErrorStream(true)
        .start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES);
    return out;
  }

  /** The bytes on a class histogram's "Total" line (the live heap), or -1 when it has none. */
  static long histogramBytes(String histogram) {
    for (String l : histogram.lines().toList()) {
      String t = l.trim();
      if (t.startsWith("Total")) {
        return Long.parseLong(t.split("\\s+")[2]);
      }
    }
    return -1;
  }
}
