package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.table.DeltaTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code dimstream spark-backfill --master local[2]} beside {@code dimstream backfill} over the same seeded change
 * file (5% late, 2% duplicate, 1% delete, 5% no-change), both through the {@code ./dimstream} launcher as a user runs
 * them, alternated in the same run: wall and CPU (the launcher and its children: SparkSubmit's JVM, which holds the
 * local executors), events/s and the ratios of the Spark job to the backfill. Both tables must hold as many rows.
 */
public final class SparkBackfillBench {
  private SparkBackfillBench() {}

  /** One size; {@code heap} is the backfill's -Xmx and the Spark driver's memory. */
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
    for (Shape s : shapes) {
      Path input = work.resolve("changes-" + s.events() + "-" + s.keys() + ".jsonl");
      if (!Files.exists(input)) {
        ChildProcess.Measured g = ChildProcess.run(work, "generate-" + s.events(), s.events() > 2_000_000 ? "14g"
            : "3g", List.of(), GenerateChanges.class.getName(), List.of(Integer.toString(s.events()),
                Integer.toString(s.keys()), "20261201", input.toString()));
        if (g.exitCode() != 0) {
          Files.deleteIfExists(input);
          throw new IllegalStateException("generating " + input + " exited " + g.exitCode());
        }
      }
      Path table = work.resolve("table-" + s.events());
      ChildProcess.Measured backfill = measured(work, "backfill-" + s.events(), s.heap(), cds, table,
          List.of("backfill", "--config", config.toString(), "--input", input.toString(), "--table",
              table.toString()));
      long rows = DeltaTable.open(table).latest().rowCount();
      BackfillBench.delete(table);
      ChildProcess.Measured spark = measured(work, "spark-backfill-" + s.events(), "512m", cds, table,
          sparkBackfill(config, input, table, s.heap()));
      long sparkRows = DeltaTable.open(table).latest().rowCount();
      BackfillBench.delete(table);
      if (sparkRows != rows) {
        throw new IllegalStateException("the Spark job wrote " + sparkRows + " rows, backfill " + rows);
      }
      Map<String, Object> p = params("events", s.events(), "keys", s.keys(), "versions_written", rows,
          "file_mb", Files.size(input) >> 20, "master", "local[2]", "driver_memory", s.heap(), "command",
          "./dimstream spark-backfill (SparkSubmit in a JVM of its own) beside ./dimstream backfill, -Xmx "
              + s.heap());
      emit("spark-backfill", "wall", spark.wallSeconds(), "s", p);
      emit("spark-backfill", "cpu", spark.cpuSeconds(), "s", p);
      emit("spark-backfill", "events_per_s", s.events() / spark.wallSeconds(), "events/s", p);
      emit("spark-backfill", "backfill_wall", backfill.wallSeconds(), "s", p);
      emit("spark-backfill", "backfill_cpu", backfill.cpuSeconds(), "s", p);
      emit("spark-backfill", "wall_ratio_to_backfill", spark.wallSeconds() / backfill.wallSeconds(), "x", p);
      emit("spark-backfill", "cpu_ratio_to_backfill", spark.cpuSeconds() / backfill.cpuSeconds(), "x", p);
      emit("spark-backfill", "peak_rss", spark.peakRssMb(), "MiB", p);
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
    measured(work, "spark-backfill-warm-up", "512m", cds, table, sparkBackfill(config, example, table, "1g"));
    BackfillBench.delete(table);
  }

  private static List<String> sparkBackfill(Path config, Path input, Path table, String driverMemory) {
    return new ArrayList<>(List.of("spark-backfill", "--master", "local[2]", "--driver-memory", driverMemory,
        "--config", config.toString(), "--input", input.toString(), "--table", table.toString(), "--conf",
        "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1", "--conf",
        "spark.driver.bindAddress=127.0.0.1"));
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
