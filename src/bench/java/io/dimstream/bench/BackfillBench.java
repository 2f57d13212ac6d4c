package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.table.DeltaTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code dimstream backfill} from the outside: a seeded change file (5% late, 2% duplicate, 1% delete, 5%
 * no-change), run through the {@code ./dimstream} launcher as a user runs it (its JVM options and its
 * class-data-sharing archive: the first run, which makes the archive, and a warm run are reported apart), wall
 * and CPU time, events/s, peak heap and RSS; then the floor in the same run, {@link ParquetFloor} over the same
 * file writing as many rows as the table got; for the first size, the speed with two expressions against the same
 * spec without them.
 */
public final class BackfillBench {
  private BackfillBench() {}

  /** One backfill size. */
  private record Shape(int events, int keys, String heap) {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/backfill"));
    List<Shape> shapes = quick ? List.of(new Shape(200_000, 20_000, "2g"))
        : List.of(new Shape(1_000_000, 100_000, "4g"), new Shape(10_000_000, 1_000_000, "12g"));
    Path config = BenchSpecs.write(work, "backfill", null, "");
    Path cds = work.resolve("cds");
    delete(cds);
    ChildProcess.prepareLauncher(work);
    boolean first = true;
    ChildProcess.Measured warm = null;
    for (Shape s : shapes) {
      Path input = changeFile(work, s.events(), s.keys());
      Path table = work.resolve("table-" + s.events());
      List<String> backfill = List.of("backfill", "--config", config.toString(), "--input", input.toString(),
          "--table", table.toString());
      long rows = -1;
      // the first shape's first run makes the launcher's archive (what a user's first backfill does), every other
      // run uses it: a user's usual run
      for (String run : first ? List.of("first", "warm") : List.of("warm")) {
        delete(table);
        String name = "backfill-" + s.events() + "-" + run;
        ChildProcess.Measured b = ChildProcess.runLauncher(work, name, s.heap(), cds, backfill);
        if (b.exitCode() != 0) {
          throw new IllegalStateException("backfill of " + input + " exited " + b.exitCode() + "; see "
              + work.resolve(name + ".log"));
        }
        rows = DeltaTable.open(table).latest().rowCount();
        Map<String, Object> p = params("events", s.events(), "keys", s.keys(), "late", 0.05, "duplicates", 0.02,
            "deletes", 0.01, "no_change", 0.05, "versions_written", rows, "xmx", s.heap(), "file_mb",
            Files.size(input) >> 20, "run", run, "command", "./dimstream backfill (the launcher: its JVM options"
                + " and class-data-sharing archive; run=first makes the archive)");
        String suffix = run.equals("first") ? "_first_run" : "";
        emit("backfill", "wall" + suffix, b.wallSeconds(), "s", p);
        emit("backfill", "cpu" + suffix, b.cpuSeconds(), "s", p);
        emit("backfill", "events_per_s" + suffix, s.events() / b.wallSeconds(), "events/s", p);
        emit("backfill", "cpu_us_per_event" + suffix, b.cpuSeconds() * 1e6 / s.events(), "us", p);
        emit("backfill", "peak_heap" + suffix, b.peakHeapMb(), "MiB", p);
        emit("backfill", "peak_rss" + suffix, b.peakRssMb(), "MiB", p);
        if (run.equals("warm")) {
          warm = b;
        }
      }
      if (first) {
        expressions(work, s, input);
      }
      first = false;

      Path parquet = work.resolve("floor-" + s.events() + ".parquet");
      ChildProcess.Measured f = ChildProcess.run(work, "floor-" + s.events(), s.heap(), List.of(),
          ParquetFloor.class.getName(), List.of(input.toString(), parquet.toString(), Long.toString(rows)));
      if (f.exitCode() != 0) {
        throw new IllegalStateException("floor over " + input + " exited " + f.exitCode());
      }
      Map<String, Object> q = params("events", s.events(), "rows_written", rows, "xmx", s.heap(), "what",
          "Jackson readTree per line + one snappy Parquet file, own JVM");
      emit("backfill", "floor_wall", f.wallSeconds(), "s", q);
      emit("backfill", "floor_events_per_s", s.events() / f.wallSeconds(), "events/s", q);
      emit("backfill", "floor_cpu", f.cpuSeconds(), "s", q);
      emit("backfill", "floor_peak_heap", f.peakHeapMb(), "MiB", q);
      emit("backfill", "wall_ratio_to_floor", warm.wallSeconds() / f.wallSeconds(), "x",
          params("events", s.events(), "run", "warm"));
      emit("backfill", "cpu_ratio_to_floor", warm.cpuSeconds() / f.cpuSeconds(), "x",
          params("events", s.events(), "run", "warm"));
      delete(table);
      Files.deleteIfExists(parquet);
    }
  }

  /** The two expressions of a user's report: a derived rank and a condition that drops some events. */
  static final String EXPRESSIONS = """
      derive:
        tier_rank: "event.tier == 'platinum' ? 4 : (event.tier == 'gold' ? 3 : (event.tier == 'silver' ? 2 : 1))"
      skip_when: "event.city == 'Lagos' && event.tier == 'bronze'"
      """;
  private static final int EXPRESSION_PAIRS = 2;

  /**
   * The cost of expressions: the example plus a {@code tier_rank} column, with and without {@link #EXPRESSIONS},
   * alternated runs over the same file in the same minutes (the ratio is what a shared machine can compare). Each
   * spec runs from the class-data-sharing archive its own first run made, as a user's runs of that spec do.
   */
  private static void expressions(Path work, Shape s, Path input) throws Exception {
    Path plain = withTierRank(BenchSpecs.write(work, "backfill-plain", null, ""), "");
    Path expr = withTierRank(BenchSpecs.write(work, "backfill-expr", null, ""), EXPRESSIONS);
    Path table = work.resolve("table-expressions");
    double[] wall = new double[2];
    double[] cpu = new double[2];
    for (int pair = -1; pair < EXPRESSION_PAIRS; pair++) { // pair -1 makes each spec's archive, not measured
      for (int i = 0; i < 2; i++) {
        Path spec = i == 0 ? plain : expr;
        String name = "backfill-" + s.events() + (i == 0 ? "-without" : "-with") + "-expressions-" + pair;
        delete(table);
        ChildProcess.Measured b = ChildProcess.runLauncher(work, name, s.heap(),
            work.resolve(i == 0 ? "cds-plain" : "cds-expr"), List.of("backfill", "--config", spec.toString(),
                "--input", input.toString(), "--table", table.toString()));
        if (b.exitCode() != 0) {
          throw new IllegalStateException(name + " exited " + b.exitCode() + "; see " + work.resolve(name + ".log"));
        }
        if (pair >= 0) {
          wall[i] += b.wallSeconds();
          cpu[i] += b.cpuSeconds();
        }
      }
    }
    delete(table);
    Map<String, Object> p = params("events", s.events(), "keys", s.keys(), "pairs", EXPRESSION_PAIRS, "expressions",
        "derive tier_rank (nested ternary on tier) + skip_when city/tier", "run", "warm, alternated");
    emit("backfill", "events_per_s_without_expressions", s.events() * EXPRESSION_PAIRS / wall[0], "events/s", p);
    emit("backfill", "events_per_s_with_expressions", s.events() * EXPRESSION_PAIRS / wall[1], "events/s", p);
    emit("backfill", "expressions_speed_ratio", wall[0] / wall[1], "x", p);
    emit("backfill", "expressions_cpu_ratio", cpu[1] / cpu[0], "x", p);
  }

  /** Adds a {@code tier_rank: long} column to a spec file written by {@link BenchSpecs#write}, and {@code extra}. */
  static Path withTierRank(Path spec, String extra) throws java.io.IOException {
    String yaml = Files.readString(spec).replace("  op: string\n", "  op: string\n  tier_rank: long\n");
    int service = yaml.indexOf("\nservice:");
    Files.writeString(spec, yaml.substring(0, service + 1) + extra + yaml.substring(service + 1));
    return spec;
  }

  /**
   * The seeded change file of {@code events} events on {@code keys} keys in {@code work}, generated in a JVM of its own
   * unless an earlier run left it there.
   */
  static Path changeFile(Path work, int events, int keys) throws Exception {
    Path input = work.resolve("changes-" + events + "-" + keys + ".jsonl");
    if (!Files.exists(input)) {
      ChildProcess.Measured g = ChildProcess.run(work, "generate-" + events, events > 2_000_000 ? "14g" : "3g",
          List.of(), GenerateChanges.class.getName(), List.of(Integer.toString(events), Integer.toString(keys),
              "20261201", input.toString()));
      if (g.exitCode() != 0) {
        Files.deleteIfExists(input);
        throw new IllegalStateException("generating " + input + " exited " + g.exitCode());
      }
    }
    return input;
  }

  static void delete(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }
}
