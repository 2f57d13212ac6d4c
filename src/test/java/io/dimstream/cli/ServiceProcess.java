package io.dimstream.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code dimstream run} in a child JVM, so a test can kill it abruptly (SIGKILL: no shutdown hook, no flush)
 * the way a crash or an OOM kill would.
 */
final class ServiceProcess implements AutoCloseable {
  private final Process process;

  private ServiceProcess(Process process) {
    this.process = process;
  }

  static ServiceProcess start(Path log, String... args) throws IOException {
    return start(log, java.util.Map.of(), args);
  }

  /** As {@link #start(Path, String...)} with {@code env} added to the child's environment. */
  static ServiceProcess start(Path log, java.util.Map<String, String> env, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    cmd.add("-cp");
    cmd.add(classPath());
    cmd.add(Main.class.getName());
    cmd.add("run");
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    return new ServiceProcess(pb.start());
  }

  /** The test class path, also when Surefire/Failsafe hand it over in a manifest-only jar. */
  private static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    if (cp == null || cp.isBlank()) {
      cp = System.getProperty("java.class.path");
    }
    return String.join(File.pathSeparator, cp.split(File.pathSeparator));
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGSTOP: every thread of the JVM freezes (heartbeats too), as in a long GC pause or a frozen host. */
  void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT: the paused JVM carries on where it stopped, unaware of the time that passed. */
  void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed with exit code " + kill.exitValue());
    }
  }

  /** SIGKILL, then wait for the process to be gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM (a clean stop through the shutdown hook); returns the exit code. */
  int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      return -1;
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
