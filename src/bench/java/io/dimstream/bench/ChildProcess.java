package io.dimstream.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one Java program in a child JVM on the bench classpath and measures it from the outside: wall time, peak
 * RSS (the kernel's high-water mark, polled from /proc) and peak heap (the largest heap before any GC, from the
 * child's GC log).
 */
final class ChildProcess {
  private static final Pattern GC_HEAP = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

  /** Runs its arguments, then writes bash's {@code times} (the children's CPU) to the file $DIMSTREAM_BENCH_TIMES. */
  private static final String TIMED = "\"$@\"; rc=$?; times > \"$DIMSTREAM_BENCH_TIMES\"; exit $rc";

  private ChildProcess() {}

  /** What the child took; {@code cpuSeconds} (user + system) is -1 when not measured. */
  record Measured(int exitCode, double wallSeconds, long peakRssMb, long peakHeapMb, long gcPauses,
      double cpuSeconds) {}

  /** Runs {@code mainClass args} with {@code heap} (e.g. "8g"); its stdout/stderr go to {@code log}. */
  static Measured run(Path work, String name, String heap, List<String> jvmArgs, String mainClass,
      List<String> args) throws IOException, InterruptedException {
    return runOn(classpath(), work, name, heap, jvmArgs, mainClass, args);
  }

  /** As {@link #run}, on {@code classpath} instead of the bench's (a program of another build, e.g. Spark's). */
  static Measured runOn(String classpath, Path work, String name, String heap, List<String> jvmArgs,
      String mainClass, List<String> args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", classpath));
    cmd.addAll(jvmOptions(work, name, heap));
    cmd.addAll(jvmArgs);
    cmd.add(mainClass);
    cmd.addAll(args);
    return timed(work, name, cmd, Map.of());
  }

  /**
   * Runs the {@code ./dimstream} launcher of the working directory with {@code args}, as a user runs it: the
   * launcher's own JVM options and class-data-sharing archive (kept in {@code cdsDir}), plus {@code -Xmx heap},
   * the GC log and the bench's logging through {@code DIMSTREAM_JAVA_OPTS}. CPU is the launcher's and its
   * children's user + system time, from bash's {@code times}.
   */
  static Measured runLauncher(Path work, String name, String heap, Path cdsDir, List<String> args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("./dimstream"));
    cmd.addAll(args);
    return timed(work, name, cmd, Map.of("DIMSTREAM_JAVA_OPTS", String.join(" ", jvmOptions(work, name, heap)),
        "DIMSTREAM_CDS_DIR", cdsDir.toAbsolutePath().toString()));
  }

  /** The bench's options for a child JVM: its heap, a GC log of its own, quiet logging, and JFR if asked. */
  private static List<String> jvmOptions(Path work, String name, String heap) {
    List<String> opts = new ArrayList<>(List.of("-Xmx" + heap, "-Xlog:gc:file=" + work.resolve(name + "-gc.log"),
        "-Dlogback.configurationFile=src/bench/resources/logback-bench.xml"));
    String jfrDir = System.getenv("BENCH_JFR_DIR");
    if (jfrDir != null && !jfrDir.isBlank()) {
      opts.add("-XX:StartFlightRecording=settings=profile,filename=" + Path.of(jfrDir, name + ".jfr").toAbsolutePath());
    }
    return opts;
  }

  /** Runs {@code command} under bash so that its CPU (bash's {@code times}) is written to {@code name-times.txt}. */
  private static Measured timed(Path work, String name, List<String> command, Map<String, String> env)
      throws IOException, InterruptedException {
    Path times = work.resolve(name + "-times.txt");
    Files.deleteIfExists(times);
    List<String> cmd = new ArrayList<>(List.of("bash", "-c", TIMED, command.get(0)));
    cmd.addAll(command);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    pb.environment().put("DIMSTREAM_BENCH_TIMES", times.toString());
    return measure(pb, work.resolve(name + ".log"), work.resolve(name + "-gc.log"), times);
  }

  /** Builds the launcher's jar if it is stale, outside any measurement (no archive is made). */
  static void prepareLauncher(Path work) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder("./dimstream", "--version").redirectErrorStream(true)
        .redirectOutput(work.resolve("launcher-build.log").toFile());
    pb.environment().put("DIMSTREAM_CDS", "off");
    int code = pb.start().waitFor();
    if (code != 0) {
      throw new IllegalStateException("./dimstream --version exited " + code + "; see "
          + work.resolve("launcher-build.log"));
    }
  }

  private static Measured measure(ProcessBuilder pb, Path log, Path gcLog, Path times)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long peakRssKb = 0;
    while (!p.waitFor(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
      // the launcher's first run keeps bash as the parent of the JVM: the JVM is a descendant
      peakRssKb = Math.max(peakRssKb, vmHwmKb(p.pid()));
      for (ProcessHandle d : p.descendants().toList()) {
        peakRssKb = Math.max(peakRssKb, vmHwmKb(d.pid()));
      }
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
    return new Measured(p.exitValue(), wall, peakRssKb / 1024, peakHeap, pauses,
        childrenCpuSeconds(times));
  }

  /** The children's user + system seconds from bash's {@code times} (its second line: {@code 0m19.2s 0m2.3s}). */
  private static double childrenCpuSeconds(Path times) throws IOException {
    if (!Files.exists(times)) {
      return -1;
    }
    List<String> lines = Files.readAllLines(times);
    if (lines.size() < 2) {
      return -1;
    }
    double sum = 0;
    Matcher m = Pattern.compile("(\\d+)m([\\d.]+)s").matcher(lines.get(1));
    while (m.find()) {
      sum += Long.parseLong(m.group(1)) * 60 + Double.parseDouble(m.group(2));
    }
    return sum;
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
