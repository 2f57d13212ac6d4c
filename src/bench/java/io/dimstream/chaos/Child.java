package io.dimstream.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One child JVM of the harness (a broker node, the S3 server, a service instance) that can be started again after it
 * was killed. Its output is appended to one log file across restarts. Signals go to the JVM itself: {@code ip netns
 * exec} replaces itself with the command, so the process started is the JVM.
 */
final class Child {
  private final String name;
  private final List<String> command;
  private final Map<String, String> environment;
  private final Path log;
  private volatile Process process;

  Child(String name, List<String> command, Map<String, String> environment, Path log) {
    this.name = name;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(environment);
    this.log = log;
  }

  /** A JVM command on this JVM's class path: {@code java <jvmOptions> -cp <cp> mainClass args}. */
  static List<String> java(List<String> jvmOptions, String mainClass, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(args);
    return cmd;
  }

  String name() {
    return name;
  }

  Path log() {
    return log;
  }

  synchronized void start() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
    }
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(environment);
    process = pb.start();
  }

  boolean alive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL: no shutdown hook, no flush, as a crash or an OOM kill; waits until the process is gone. */
  void kill() throws InterruptedException {
    Process p = process;
    if (p != null && p.isAlive()) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** SIGSTOP: the process is frozen, as a long GC pause or a suspended VM; its sockets stay open. */
  void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT: the frozen process runs on, unaware of the time that passed. */
  void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String sig) throws IOException, InterruptedException {
    Process p = process;
    if (p != null && p.isAlive()) {
      int code = new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start().waitFor();
      if (code != 0) {
        throw new IOException("kill -" + sig + " " + p.pid() + " (" + name + ") exited " + code);
      }
    }
  }

  /** SIGTERM, then SIGKILL when it has not ended within {@code seconds}. */
  void stop(int seconds) throws InterruptedException {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      resume(); // a stopped process cannot handle SIGTERM
    } catch (IOException e) {
      // gone meanwhile
    }
    p.destroy();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      kill();
    }
  }
}
