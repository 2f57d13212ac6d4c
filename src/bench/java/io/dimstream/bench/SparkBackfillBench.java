package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.cli.SparkStandaloneCluster;
import io.dimstream.interop.SparkProcess;
import io.dimstream.table.DeltaTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code dimstream spark-backfill} on {@code local[2]} and on a standalone cluster (a master and two workers of one
 * core each, separate JVMs on 127.0.0.1) beside {@code dimstream backfill} and the classic Delta MERGE job
 * ({@code interop/}'s {@code io.dimstream.interop.DeltaMergeScd2}, Spark 4.0.1 + Delta 4.0.1 on {@code local[2]}),
 * all over the same seeded change file (5% late, 2% duplicate, 1% delete, 5% no-change) in the same run: wall and
 * CPU, events/s and the ratios between them. The dimstream commands run through the {@code ./dimstream} launcher as
 * a user runs them; the Spark job's tables must hold as many rows as the backfill's. The MERGE baseline's rows are
 * only counted: it keeps one event per key per batch and is wrong under late data.
 */
public final class SparkBackfillBench {
  /** The MERGE baseline is not run at a size whose estimate (linear from the size before) exceeds this. */
  private static final double MERGE_CAP_SECONDS = 900;
  /** One MERGE per tenth of the input, in arrival order: a job run ten times over ten increments. */
  private static final int MERGE_BATCHES = 10;
  /** Each worker's memory and its executor's: room for its bucket tasks at 10M events. */
  private static final String EXECUTOR_MEMORY = "3g";
  private static final String CLUSTER = "standalone: master + 2 workers x 1 core (" + EXECUTOR_MEMORY
      + "), 127.0.0.1";
  /** Compiled by interop/'s own build, which has Spark and Delta Spark: named, not linked. */
  private static final String MERGE_CLASS = "io.dimstream.interop.DeltaMergeScd2";
  private static final Pattern MERGE_ROWS =
      Pattern.compile("merge-baseline rows=(\\d+) current=(\\d+) merges=(\\d+)");

  private SparkBackfillBench() {}

  /** One size; {@code heap} is the backfill's -Xmx and the Spark drivers' memory. */
  private record Shape(int events, int keys, String heap) {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/spark-backfill"));
    List<Shape> shapes = quick ? List.of(new Shape(200_000, 20_000, "2g"))
        : List.of(new Shape(1_000_000, 100_000, "4g"), new Shape(10_000_000, 1_000_000, "8g"));
    Path config = BenchSpecs.write(work, "spark-backfill", null, "");
    Path cds = work.resolve("cds");
    BackfillBench.delete(cds);
    ChildProcess.prepareLauncher(work);
    warmUp(work, config, cds);
    String mergeClasspath = SparkProcess.classpath();
    // the cluster's jars are spark/'s; the bench's classes sit in target/bench/, not where the launcher looks
    System.setProperty("dimstream.home", Path.of("").toAbsolutePath().toString());
    BackfillBench.delete(work.resolve("cluster"));
    double mergeSecondsPerEvent = 0;
    try (SparkStandaloneCluster cluster = SparkStandaloneCluster.start(
        Files.createDirectories(work.resolve("cluster")), 2, EXECUTOR_MEMORY)) {
      for (Shape s : shapes) {
        Path input = BackfillBench.changeFile(work, s.events(), s.keys());
        Path table = work.resolve("table-" + s.events());
        ChildProcess.Measured backfill = measured(work, "backfill-" + s.events(), s.heap(), cds, table,
            List.of("backfill", "--config", config.toString(), "--input", input.toString(), "--table",
                table.toString()));
        long rows = rows(table);
        ChildProcess.Measured local = measured(work, "spark-backfill-" + s.events(), "512m", cds, table,
            sparkBackfill(config, input, table, s.heap(), "local[2]", List.of()));
        checkRows("local[2]", rows(table), rows);
        double clusterCpuBefore = ProcessCpu.seconds(cluster.processes());
        ChildProcess.Measured onCluster = measured(work, "spark-backfill-cluster-" + s.events(), "512m", cds, table,
            sparkBackfill(config, input, table, s.heap(), cluster.url(),
                List.of("--conf", "spark.executor.memory=" + EXECUTOR_MEMORY)));
        ProcessCpu.awaitNoChildren(cluster.processes(), 60);
        double clusterCpu = onCluster.cpuSeconds() + ProcessCpu.seconds(cluster.processes()) - clusterCpuBefore;
        checkRows("the cluster", rows(table), rows);

        Map<String, Object> p = params("events", s.events(), "keys", s.keys(), "versions_written", rows,
            "file_mb", Files.size(input) >> 20, "master", "local[2]", "driver_memory", s.heap(), "command",
            "./dimstream spark-backfill (SparkSubmit in a JVM of its own) beside ./dimstream backfill, -Xmx "
                + s.heap());
        emitJob(p, local, backfill);
        emit("spark-backfill", "backfill_wall", backfill.wallSeconds(), "s", p);
        emit("spark-backfill", "backfill_cpu", backfill.cpuSeconds(), "s", p);
        Map<String, Object> c = new LinkedHashMap<>(p);
        c.put("master", CLUSTER);
        ChildProcess.Measured clusterRun = new ChildProcess.Measured(onCluster.exitCode(), onCluster.wallSeconds(),
            onCluster.peakRssMb(), onCluster.peakHeapMb(), onCluster.gcPauses(), clusterCpu);
        emitJob(c, clusterRun, backfill);
        emit("spark-backfill", "wall_ratio_to_local", clusterRun.wallSeconds() / local.wallSeconds(), "x", c);
        emit("spark-backfill", "cpu_ratio_to_local", clusterRun.cpuSeconds() / local.cpuSeconds(), "x", c);

        double estimate = mergeSecondsPerEvent * s.events();
        Map<String, Object> m = params("events", s.events(), "keys", s.keys(), "file_mb", Files.size(input) >> 20,
            "master", "local[2]", "driver_memory", s.heap(), "batches", MERGE_BATCHES, "batch_events",
            (s.events() + MERGE_BATCHES - 1) / MERGE_BATCHES, "command",
            "DeltaMergeScd2 (Spark 4.0.1 + Delta 4.0.1, one MERGE INTO per batch of arrival order, each key's last"
                + " event of the batch), -Xmx " + s.heap());
        if (estimate > MERGE_CAP_SECONDS) {
          m.put("not_run", "estimated " + Math.round(estimate) + " s from the size before, over the cap of "
              + Math.round(MERGE_CAP_SECONDS) + " s");
          emit("spark-backfill", "merge_estimated_wall", estimate, "s", m);
          continue;
        }
        BackfillBench.delete(table);
        ChildProcess.Measured merge = mergeBaseline(work, mergeClasspath, s, input, table);
        Matcher counts = MERGE_ROWS.matcher(Files.readString(work.resolve("merge-baseline-" + s.events() + ".log")));
        if (!counts.find()) {
          throw new IllegalStateException("the MERGE baseline printed no row count; see its log in " + work);
        }
        BackfillBench.delete(table);
        mergeSecondsPerEvent = merge.wallSeconds() / s.events();
        m.put("rows", Long.parseLong(counts.group(1)));
        m.put("current_rows", Long.parseLong(counts.group(2)));
        m.put("merges", Integer.parseInt(counts.group(3)));
        m.put("dimstream_versions", rows);
        emit("spark-backfill", "merge_wall", merge.wallSeconds(), "s", m);
        emit("spark-backfill", "merge_cpu", merge.cpuSeconds(), "s", m);
        emit("spark-backfill", "merge_events_per_s", s.events() / merge.wallSeconds(), "events/s", m);
        emit("spark-backfill", "merge_wall_ratio_to_backfill", merge.wallSeconds() / backfill.wallSeconds(), "x", m);
        emit("spark-backfill", "merge_cpu_ratio_to_backfill", merge.cpuSeconds() / backfill.cpuSeconds(), "x", m);
        emit("spark-backfill", "merge_wall_ratio_to_spark_job", merge.wallSeconds() / local.wallSeconds(), "x", m);
        emit("spark-backfill", "merge_cpu_ratio_to_spark_job", merge.cpuSeconds() / local.cpuSeconds(), "x", m);
        emit("spark-backfill", "merge_peak_rss", merge.peakRssMb(), "MiB", m);
      }
    }
  }

  /** A Spark job's figures and their ratios to the backfill of the same file. */
  private static void emitJob(Map<String, Object> p, ChildProcess.Measured job, ChildProcess.Measured backfill) {
    int events = (Integer) p.get("events");
    emit("spark-backfill", "wall", job.wallSeconds(), "s", p);
    emit("spark-backfill", "cpu", job.cpuSeconds(), "s", p);
    emit("spark-backfill", "events_per_s", events / job.wallSeconds(), "events/s", p);
    emit("spark-backfill", "wall_ratio_to_backfill", job.wallSeconds() / backfill.wallSeconds(), "x", p);
    emit("spark-backfill", "cpu_ratio_to_backfill", job.cpuSeconds() / backfill.cpuSeconds(), "x", p);
    emit("spark-backfill", "peak_rss", job.peakRssMb(), "MiB", p);
  }

  /** The classic MERGE job in a JVM of its own on interop/'s classpath (Spark and Delta Spark from Maven). */
  private static ChildProcess.Measured mergeBaseline(Path work, String classpath, Shape s, Path input, Path table)
      throws Exception {
    Path staging = work.resolve("merge-staging");
    BackfillBench.delete(staging);
    List<String> jvm = new ArrayList<>(List.of("-Djava.net.preferIPv4Stack=true",
        "-Dio.netty.tryReflectionSetAccessible=true",
        "-Dlog4j2.configurationFile=" + Path.of("spark/log4j2.properties").toAbsolutePath().toUri()));
    for (String pkg : List.of("java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net",
        "java.nio", "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref",
        "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar")) {
      jvm.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
    }
    String name = "merge-baseline-" + s.events();
    ChildProcess.Measured m = ChildProcess.runOn(classpath, work, name, s.heap(), jvm,
        MERGE_CLASS, List.of(input.toAbsolutePath().toString(),
            table.toAbsolutePath().toString(), staging.toAbsolutePath().toString(), Integer.toString(MERGE_BATCHES),
            "local[2]"));
    BackfillBench.delete(staging);
    if (m.exitCode() != 0) {
      throw new IllegalStateException(name + " exited " + m.exitCode() + "; see " + work.resolve(name + ".log"));
    }
    return m;
  }

  private static long rows(Path table) {
    return DeltaTable.open(table).latest().rowCount();
  }

  private static void checkRows(String where, long rows, long backfillRows) {
    if (rows != backfillRows) {
      throw new IllegalStateException("the Spark job on " + where + " wrote " + rows + " rows, backfill "
          + backfillRows);
    }
  }

  /**
   * One unmeasured run of each on the example: the launcher's class-data-sharing archive of {@code backfill} and
   * the job's jar ({@code spark-backfill} builds it on first use) are made outside the measured runs.
   */
  private static void warmUp(Path work, Path config, Path cds) throws Exception {
    Path example = Path.of("examples/customers-changes.jsonl");
    Path table = work.resolve("table-warm-up");
    BackfillBench.delete(table);
    measured(work, "backfill-warm-up", "1g", cds, table, List.of("backfill", "--config", config.toString(),
        "--input", example.toString(), "--table", table.toString()));
    BackfillBench.delete(table);
    measured(work, "spark-backfill-warm-up", "512m", cds, table,
        sparkBackfill(config, example, table, "1g", "local[2]", List.of()));
    BackfillBench.delete(table);
  }

  private static List<String> sparkBackfill(Path config, Path input, Path table, String driverMemory, String master,
      List<String> extra) {
    List<String> cmd = new ArrayList<>(List.of("spark-backfill", "--master", master, "--driver-memory",
        driverMemory, "--config", config.toString(), "--input", input.toString(), "--table", table.toString(),
        "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1", "--conf",
        "spark.driver.bindAddress=127.0.0.1"));
    cmd.addAll(extra);
    return cmd;
  }

  private static ChildProcess.Measured measured(Path work, String name, String heap, Path cds, Path table,
      List<String> command) throws Exception {
    BackfillBench.delete(table);
    ChildProcess.Measured m = ChildProcess.runLauncher(work, name, heap, cds, command);
    if (m.exitCode() != 0) {
      throw new IllegalStateException(name + " exited " + m.exitCode() + "; see " + work.resolve(name + ".log"));
    }
    return m;
  }
}
