package io.dimstream.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Prints the machine line: cores, memory, CPU model, load average, the commit measured and the time, before or after
 * the run.
 */
public final class Machine {
  private Machine() {}

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "full";
    String when = args.length > 1 ? args[1] : "before";
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Figures.emit("machine", when.equals("before") ? "cores" : "cores_after", os.getAvailableProcessors(), "cores",
        Figures.params("memory_mib", os.getTotalMemorySize() >> 20, "cpu", cpuModel(),
            "load_avg_1m", os.getSystemLoadAverage(), "loadavg", loadavg(), "when", when, "mode", mode,
            "java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
            "os", System.getProperty("os.name") + " " + System.getProperty("os.version"),
            "commit", System.getenv().getOrDefault("BENCH_COMMIT", "unknown"), "date", Instant.now().toString()));
  }

  private static String cpuModel() throws Exception {
    Path p = Path.of("/proc/cpuinfo");
    if (!Files.exists(p)) {
      return "unknown";
    }
    return Files.readAllLines(p).stream().filter(l -> l.startsWith("model name")).findFirst()
        .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown");
  }

  private static String loadavg() throws Exception {
    Path p = Path.of("/proc/loadavg");
    return Files.exists(p) ? Files.readString(p).trim() : "unknown";
  }
}
