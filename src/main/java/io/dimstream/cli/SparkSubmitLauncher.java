package io.dimstream.cli;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the Spark job of {@code spark/} through Spark's own submit entry point ({@code SparkSubmit}) in a JVM of its
 * own: builds {@code spark/target/dimstream-spark.jar} and resolves Spark's classpath with Maven when they are
 * missing or older than the dimstream jar or {@code spark/}'s sources, as {@code ./dimstream} builds its own jar.
 * The job's jar carries all of dimstream, so executors need nothing beyond Spark.
 */
final class SparkSubmitLauncher {
  static final String JOB_CLASS = "io.dimstream.spark.BackfillJob";
  /** The JDK packages Spark reflects into, as Spark's own launcher opens them on Java 17. */
  static final List<String> OPENS = List.of("java.lang", "java.lang.invoke", "java.lang.reflect", "java.io",
      "java.net", "java.nio", "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref",
      "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar");

  private final Path home;

  SparkSubmitLauncher(Path home) {
    this.home = home;
  }

  /** The dimstream checkout this code runs from: the parent of the {@code target/} its jar or classes are in. */
  static SparkSubmitLauncher fromCheckout() {
    String override = System.getProperty("dimstream.home");
    Path home;
    if (override != null && !override.isBlank()) {
      home = Path.of(override);
    } else {
      try {
        Path code = Path.of(SparkSubmitLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        // target/dimstream.jar or target/classes
        home = code.toAbsolutePath().getParent().getParent();
      } catch (URISyntaxException | RuntimeException e) {
        home = Path.of(".").toAbsolutePath();
      }
    }
    if (!Files.isRegularFile(home.resolve("spark/pom.xml"))) {
      throw new CliErrors.UsageError("spark-backfill runs the Spark job from a dimstream checkout, and " + home
          + " has no spark/pom.xml. Fix: run ./dimstream from the checkout, or submit spark/target/dimstream-spark.jar"
          + " to your cluster with spark-submit (docs/operations.md)");
    }
    return new SparkSubmitLauncher(home);
  }

  Path jobJar() {
    return home.resolve("spark/target/dimstream-spark.jar");
  }

  /**
   * Runs SparkSubmit with {@code submitArgs} (its options, then the job's jar and arguments are added after them)
   * and returns its exit code; its output goes to this process's.
   */
  int submit(List<String> sparkOptions, List<String> jobArgs, String driverMemory) throws IOException,
      InterruptedException {
    String classpath = String.join(java.io.File.pathSeparator, sparkJars().stream().map(Path::toString).toList());
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + driverMemory, "-Djava.net.preferIPv4Stack=true", "-Dio.netty.tryReflectionSetAccessible=true",
        "-Dlog4j2.configurationFile=" + home.resolve("spark/log4j2.properties").toUri()));
    for (String pkg : OPENS) {
      cmd.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
    }
    cmd.addAll(List.of("-cp", classpath, "org.apache.spark.deploy.SparkSubmit"));
    cmd.addAll(sparkOptions);
    cmd.addAll(List.of("--class", JOB_CLASS, jobJar().toString()));
    cmd.addAll(jobArgs);
    Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.INHERIT).start();
    // copied rather than inherited: the job's report and errors reach whatever this process's streams are now
    Thread out = copy(p.getInputStream(), System.out, "spark-submit-out");
    Thread err = copy(p.getErrorStream(), System.err, "spark-submit-err");
    try {
      int code = p.waitFor();
      out.join();
      err.join();
      return code;
    } catch (InterruptedException e) {
      p.destroy();
      throw e;
    }
  }

  private static Thread copy(java.io.InputStream from, java.io.PrintStream to, String name) {
    Thread t = new Thread(() -> {
      try {
        from.transferTo(to);
      } catch (IOException e) {
        // the child is gone; its exit code tells
      }
      to.flush();
    }, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * Spark's jars and their dependencies, as Maven resolves them for {@code spark/} (Spark 4.0.1, Scala 2.13), after
   * building the job's jar when it is missing or stale: what a SparkSubmit, a Master or a Worker runs from.
   */
  List<Path> sparkJars() throws IOException, InterruptedException {
    Path classpathFile = home.resolve("spark/target/spark-classpath.txt");
    if (stale(classpathFile)) {
      build(classpathFile);
    }
    List<Path> jars = new ArrayList<>();
    for (String entry : Files.readString(classpathFile).trim().split(java.io.File.pathSeparator)) {
      jars.add(Path.of(entry));
    }
    return jars;
  }

  /** Whether the job's jar or the classpath is missing, or older than dimstream's jar or {@code spark/}'s sources. */
  private boolean stale(Path classpathFile) throws IOException {
    Path jar = jobJar();
    if (!Files.isRegularFile(jar) || !Files.isRegularFile(classpathFile)) {
      return true;
    }
    long built = Math.min(Files.getLastModifiedTime(jar).toMillis(),
        Files.getLastModifiedTime(classpathFile).toMillis());
    List<Path> sources = new ArrayList<>(List.of(home.resolve("target/dimstream.jar"), home.resolve("spark/pom.xml")));
    try (Stream<Path> files = Files.walk(home.resolve("spark/src"))) {
      files.filter(Files::isRegularFile).forEach(sources::add);
    }
    for (Path s : sources) {
      if (Files.exists(s) && Files.getLastModifiedTime(s).toMillis() > built) {
        return true;
      }
    }
    return false;
  }

  /** Builds the job's jar (it nests target/dimstream.jar) and writes Spark's classpath, with Maven. */
  private void build(Path classpathFile) throws IOException, InterruptedException {
    if (!Files.isRegularFile(home.resolve("target/dimstream.jar"))) {
      throw new CliErrors.UsageError(home.resolve("target/dimstream.jar") + " is missing, and the Spark job's jar "
          + "carries it. Fix: build it first (mvn -B -DskipTests package, or any ./dimstream command)");
    }
    String mavenHome = System.getProperty("maven.home");
    String mvn = mavenHome == null || mavenHome.isBlank() ? "mvn" : Path.of(mavenHome, "bin", "mvn").toString();
    List<String> cmd = new ArrayList<>(List.of(mvn, "-B", "-q", "-f", home.resolve("spark/pom.xml").toString()));
    String repo = System.getProperty("dimstream.maven.repo");
    if (repo != null && !repo.isBlank()) {
      cmd.add("-Dmaven.repo.local=" + repo);
    }
    cmd.addAll(List.of("package", "dependency:build-classpath", "-Dmdep.includeScope=compile",
        "-Dmdep.outputFile=" + classpathFile));
    System.err.println("dimstream: building " + jobJar() + " and resolving Spark with Maven (first use or sources "
        + "changed)...");
    Path log = Files.createTempFile("dimstream-spark-build", ".log");
    try {
      Process p;
      try {
        p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      } catch (IOException e) {
        throw new CliErrors.UsageError("Cannot run Maven (" + mvn + ") to build the Spark job: " + e.getMessage()
            + ". Fix: install Maven 3.8+ and put 'mvn' on the PATH");
      }
      if (!p.waitFor(20, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new CliErrors.InputError("Building the Spark job failed (" + String.join(" ", cmd) + "):"
            + "\n" + Files.readString(log));
      }
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
