package io.dimstream.bench;

import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.model.ChangeEvent;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The pure SCD2 engine under JMH: {@link IncrementalHistory} over an {@link InMemoryHistoryStore}, one
 * measured invocation applies a whole generated stream. Scenarios: {@code in-order} (no late event), {@code
 * late-5pct} (5% of events arrive after a newer one of their key), {@code replay-100pct} (the in-order stream
 * applied again to the store it already built: every event takes the late path and changes nothing).
 *
 * <p>{@code main(quick)} runs it and prints events/s per scenario and shape as figures.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class EngineBench {
  static final long SEED = 20_261_201L;

  /** {@code <keys>x<events>}. */
  @Param({"10000x200000"})
  public String shape;

  @Param({"in-order", "late-5pct", "replay-100pct"})
  public String scenario;

  private IncrementalHistory engine;
  private List<ChangeEvent> events;
  private InMemoryHistoryStore store;

  @Setup(Level.Trial)
  public void generate() throws Exception {
    DimensionSpec spec = BenchSpecs.customers();
    int keys = Integer.parseInt(shape.split("x")[0]);
    int n = Integer.parseInt(shape.split("x")[1]);
    double late = scenario.equals("late-5pct") ? 0.05 : 0.0;
    events = ChangeStreams.random(spec, SEED).keys(keys).events(n).late(late).generate().events();
    engine = new IncrementalHistory(spec);
    if (scenario.equals("replay-100pct")) {
      store = new InMemoryHistoryStore();
      applyAll(engine, store, events, null);
    }
  }

  @Setup(Level.Invocation)
  public void freshStore() {
    if (!scenario.equals("replay-100pct")) {
      store = new InMemoryHistoryStore();
    }
  }

  @Benchmark
  public void apply(Blackhole bh) {
    applyAll(engine, store, events, bh);
  }

  private static void applyAll(IncrementalHistory engine, InMemoryHistoryStore store, List<ChangeEvent> events,
      Blackhole bh) {
    for (ChangeEvent e : events) {
      Object r = engine.apply(store, e);
      if (bh != null) {
        bh.consume(r);
      }
    }
  }

  /** Runs the JMH benchmark in a forked JVM and prints events/s per scenario and shape. */
  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/engine"));
    String[] shapes = quick ? new String[] {"10000x50000", "1000000x1000000"}
        : new String[] {"10000x200000", "1000000x2000000"};
    Options options = new OptionsBuilder()
        .include(EngineBench.class.getName() + ".apply")
        .param("shape", shapes)
        .forks(1)
        .warmupIterations(quick ? 0 : 1)
        .measurementIterations(quick ? 1 : 3)
        .jvmArgs("-Xmx8g", "-XX:+UseParallelGC")
        .output(work.resolve("jmh.log").toString()) // JMH's own report; stdout carries only figures
        .build();
    Collection<RunResult> results = new Runner(options).run();
    for (RunResult r : results) {
      String shape = r.getParams().getParam("shape");
      String scenario = r.getParams().getParam("scenario");
      int keys = Integer.parseInt(shape.split("x")[0]);
      int n = Integer.parseInt(shape.split("x")[1]);
      double ms = r.getPrimaryResult().getScore();
      Figures.emit("engine", "events_per_s", n / (ms / 1000.0), "events/s", Figures.params("scenario", scenario,
          "keys", keys, "events", n, "ms_per_stream", Math.round(ms), "ms_error_99pct",
          Math.round(r.getPrimaryResult().getScoreError()), "iterations", r.getPrimaryResult().getSampleCount(),
          "jmh", "SingleShotTime, 1 fork, ParallelGC, -Xmx8g"));
    }
  }
}
