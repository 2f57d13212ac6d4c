package io.dimstream.cli;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Spark standalone cluster on 127.0.0.1: a Master and {@code n} Workers, each a JVM of its own started from the
 * same Maven jars as {@code spark-backfill} (a {@code SPARK_HOME} whose {@code jars/} links them, with a
 * {@code RELEASE} file and {@code SPARK_SCALA_VERSION=2.13}, which is what a Worker needs to launch executors). Each
 * worker has one core, {@code workerMemory} (1g in the tests) and its own work directory, where its executors' logs
 * land. Closing it stops every process; so does the end of the JVM. The benchmark of the Spark job runs on it too.
 */
public final class SparkStandaloneCluster implements AutoCloseable {
  private static final Pattern REGISTERED = Pattern.compile("Registering worker");

  private final List<Process> processes = new ArrayList<>();
  private final Path dir;
  private final List<Path> workDirs = new ArrayList<>();
  private final Path masterLog;
  private final String workerMemory;
  private String url;

  private SparkStandaloneCluster(Path dir, String workerMemory) {
    this.dir = dir;
    this.workerMemory = workerMemory;
    this.masterLog = dir.resolve("master.log");
  }

  static SparkStandaloneCluster start(Path dir, int workers) throws Exception {
    return start(dir, workers, "1g");
  }

  public static SparkStandaloneCluster start(Path dir, int workers, String workerMemory) throws Exception {
    SparkStandaloneCluster cluster = new SparkStandaloneCluster(dir, workerMemory);
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "spark-cluster-stop"));
    try {
      cluster.startAll(workers);
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private void startAll(int workers) throws Exception {
    Path home = sparkHome(SparkSubmitLauncher.fromCheckout().sparkJars());
    int port = freePort();
    url = "spark://127.0.0.1:" + port;
    processes.add(start(home, masterLog, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
        Integer.toString(port), "--webui-port", Integer.toString(freePort())));
    for (int i = 0; i < workers; i++) {
      Path work = Files.createDirectories(dir.resolve("worker-" + i));
      workDirs.add(work);
      processes.add(start(home, dir.resolve("worker-" + i + ".log"), "org.apache.spark.deploy.worker.Worker",
          "--host", "127.0.0.1", "--cores", "1", "--memory", workerMemory, "--webui-port",
          Integer.toString(freePort()), "--work-dir", work.toString(), url));
    }
    await("the workers to register with the master").atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(300))
        .failFast("a cluster process died; see the logs in " + dir, () -> processes.stream().anyMatch(p -> !p.isAlive()))
        .until(() -> registered() >= workers);
  }

  /** The master's URL, {@code spark://127.0.0.1:port}. */
  public String url() {
    return url;
  }

  /** The master's and the workers' processes (a worker's executors are its children). */
  public List<ProcessHandle> processes() {
    return processes.stream().map(Process::toHandle).toList();
  }

  /** Each worker's work directory: {@code app-*}/{@code <executor id>}/ per executor it ran. */
  List<Path> workDirs() {
    return workDirs;
  }

  private long registered() throws IOException {
    Matcher m = REGISTERED.matcher(Files.readString(masterLog));
    long n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  /** A Spark home of links to the jars, as a Worker's executor launcher expects a release to look. */
  private Path sparkHome(List<Path> jars) throws IOException {
    Path home = Files.createDirectories(dir.resolve("spark-home"));
    Path jarsDir = Files.createDirectories(home.resolve("jars"));
    for (Path jar : jars) {
      Path link = jarsDir.resolve(jar.getFileName());
      if (!Files.exists(link)) {
        Files.createSymbolicLink(link, jar.toAbsolutePath());
      }
    }
    Files.writeString(home.resolve("RELEASE"), "Spark 4.0.1 (Scala 2.13) from the Maven artifacts of spark/pom.xml\n");
    return home;
  }

  private static Process start(Path home, Path log, String mainClass, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-Djava.net.preferIPv4Stack=true"));
    for (String pkg : SparkSubmitLauncher.OPENS) {
      cmd.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
    }
    cmd.addAll(List.of("-cp", home.resolve("jars") + "/*", mainClass));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.put("SPARK_HOME", home.toString());
    env.put("SPARK_SCALA_VERSION", "2.13");
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    env.put("JAVA_HOME", System.getProperty("java.home"));
    return pb.start();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public synchronized void close() {
    // workers first: they stop their executors
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process p = processes.get(i);
      p.destroy();
      try {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    processes.clear();
  }
}
