package io.dimstream.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU seconds of long-lived processes the bench did not start as a measured child (a Spark master and its workers),
 * from /proc: their own user + system time and that of their children that have ended (a worker's executors), so the
 * difference of two readings is what they spent in between.
 */
final class ProcessCpu {
  private static final double TICKS_PER_SECOND = ticksPerSecond();

  private ProcessCpu() {}

  /** utime + stime + cutime + cstime of each process, summed, in seconds; a process gone counts 0. */
  static double seconds(List<ProcessHandle> processes) {
    long ticks = 0;
    for (ProcessHandle p : processes) {
      ticks += ticks(p.pid());
    }
    return ticks / TICKS_PER_SECOND;
  }

  /**
   * Waits up to {@code seconds} until none of {@code processes} has a live child: an executor's CPU reaches its
   * worker's cutime only once the worker has reaped it.
   */
  static void awaitNoChildren(List<ProcessHandle> processes, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (System.nanoTime() < deadline && processes.stream().anyMatch(p -> p.children().findAny().isPresent())) {
      Thread.sleep(200);
    }
  }

  private static long ticks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // the command name (2nd field) may hold spaces; the fields after its closing parenthesis do not
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      // after the name: state is f[0], so utime, stime, cutime, cstime (fields 14-17) are f[11..14]
      return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static double ticksPerSecond() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor() == 0 ? Double.parseDouble(out) : 100;
    } catch (IOException | InterruptedException | NumberFormatException e) {
      return 100; // the Linux default
    }
  }
}
