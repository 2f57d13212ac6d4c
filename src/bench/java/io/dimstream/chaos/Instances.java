package io.dimstream.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The service instances: {@code dimstream run} of one spec in a JVM each, with a data directory each, inside its
 * own network namespace when there is one. An instance that exits without being killed is counted and started again.
 */
final class Instances implements AutoCloseable {
  static final String HEAP = "-Xmx512m";
  /** What {@code dimstream run} logs once its topology, compactor and query endpoint run. */
  static final String RUNNING = "running: ";
  private final List<Child> children = new ArrayList<>();
  private final AtomicInteger unexpectedExits = new AtomicInteger();

  Instances(Path work, int n, Path spec, Network network, Map<String, String> environment) throws IOException {
    for (int i = 0; i < n; i++) {
      Path data = work.resolve("instance-" + i);
      Files.createDirectories(data);
      // C1 only, as the brokers: on a few shared cores the optimising compiler's threads take the CPU a starting
      // instance needs, and a restart after a kill then takes far longer than the service's own start
      List<String> cmd = Child.java(List.of(HEAP, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
              "-Dlogback.configurationFile=" + ChaosRun.LOGBACK),
          "io.dimstream.cli.Main", List.of("run", "--config", spec.toString(), "--data-dir", data.toString()));
      Map<String, String> env = new HashMap<>(environment);
      children.add(new Child("instance-" + i, network.inInstance(i, cmd), env, work.resolve("instance-" + i + ".log")));
    }
  }

  int size() {
    return children.size();
  }

  Child get(int i) {
    return children.get(i);
  }

  void startAll() throws IOException {
    for (Child c : children) {
      c.start();
    }
  }

  /** Starts instance {@code i} again if it ended by itself; returns whether it had. */
  boolean restartIfExited(int i) throws IOException {
    Child c = children.get(i);
    if (!c.alive()) {
      unexpectedExits.incrementAndGet();
      System.err.println("chaos: " + c.name() + " exited by itself; see " + c.log() + "; starting it again");
      c.start();
      return true;
    }
    return false;
  }

  /** How often instance {@code i} has logged that it runs, over all its starts. */
  int runningLines(int i) throws IOException {
    Path log = children.get(i).log();
    if (!Files.exists(log)) {
      return 0;
    }
    try (var lines = Files.lines(log, java.nio.charset.StandardCharsets.ISO_8859_1)) {
      return (int) lines.filter(l -> l.contains(RUNNING)).count();
    }
  }

  /**
   * Waits until instance {@code i} logs that it runs for more than {@code before} times (a start after a kill
   * completed), at most {@code timeout}; restarts it when it exits meanwhile. Returns whether it did.
   */
  boolean awaitRunning(int i, int before, java.time.Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (runningLines(i) > before) {
        return true;
      }
      restartIfExited(i);
      Thread.sleep(500);
    }
    return false;
  }

  /** Lines of every instance's log, over all its starts, that contain {@code text}. */
  long linesContaining(String text) throws IOException {
    long n = 0;
    for (Child c : children) {
      if (Files.exists(c.log())) {
        try (var lines = Files.lines(c.log(), java.nio.charset.StandardCharsets.ISO_8859_1)) {
          n += lines.filter(l -> l.contains(text)).count();
        }
      }
    }
    return n;
  }

  int unexpectedExits() {
    return unexpectedExits.get();
  }

  @Override
  public void close() throws InterruptedException {
    for (Child c : children) {
      c.stop(30);
    }
  }
}
