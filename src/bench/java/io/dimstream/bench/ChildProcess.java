package io.dimstream.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one Java program in a child JVM on the bench classpath and measures it from the outside: wall time, peak
 * RSS (the kernel's high-water mark, polled from /proc) and peak heap (the largest heap before any GC, from the
 * child's GC log).
 */
final class ChildProcess {
  private static final Pattern GC_HEAP = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

  private ChildProcess() {}

  /** What the child took. */
  record Measured(int exitCode, double wallSeconds, long peakRssMb, long peakHeapMb, long gcPauses) {}

  /** Runs {@code mainClass args} with {@code heap} (e.g. "8g"); its stdout/stderr go to {@code log}. */
  static Measured run(Path work, String name, String heap, List<String> jvmArgs, String mainClass,
      List<String> args) throws IOException, InterruptedException {
    Path gcLog = work.resolve(name + "-gc.log");
    Path log = work.resolve(name + ".log");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap, "-Xlog:gc:file=" + gcLog, "-Dlogback.configurationFile=src/bench/resources/logback-bench.xml",
        "-cp", classpath()));
    cmd.addAll(jvmArgs);
    String jfrDir = System.getenv("BENCH_JFR_DIR");
    if (jfrDir != null && !jfrDir.isBlank()) {
      cmd.add("-XX:StartFlightRecording=settings=profile,filename=" + Path.of(jfrDir, name + ".jfr").toAbsolutePath());
    }
    cmd.add(mainClass);
    cmd.addAll(args);
    long start = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long peakRssKb = 0;
    while (!p.waitFor(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
      peakRssKb = Math.max(peakRssKb, vmHwmKb(p.pid()));
    }
    double wall = (System.nanoTime() - start) / 1e9;
    long peakHeap = 0;
    long pauses = 0;
    if (Files.exists(gcLog)) {
      for (String line : Files.readAllLines(gcLog)) {
        Matcher m = GC_HEAP.matcher(line);
        if (m.find()) {
          peakHeap = Math.max(peakHeap, Long.parseLong(m.group(1)));
          pauses++;
        }
      }
    }
    return new Measured(p.exitValue(), wall, peakRssKb / 1024, peakHeap, pauses);
  }

  /** The classpath bench/run built (BENCH_CP), else this JVM's. */
  static String classpath() {
    String cp = System.getenv("BENCH_CP");
    return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
  }

  /** VmHWM of a live process in kB, 0 once it is gone. */
  static long vmHwmKb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0; // the process exited between two polls
    }
    return 0;
  }
}
