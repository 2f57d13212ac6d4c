package io.dimstream.cli;

import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dimstream demo}: the whole streaming path on the example dimension, or on your own spec and file. */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Starts an embedded Kafka broker, runs a dimension, sends a change file through it, waits until",
        "the Delta table holds every version, prints a summary and keeps serving queries until Ctrl-C.",
        "Defaults: the example customers dimension (examples/customers.yaml) and its change stream with late,",
        "duplicate and delete events (examples/customers-changes.jsonl)."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the table caught up (and, without --exit-when-done, the service was stopped)",
        "1:the service failed or did not catch up in time", "2:bad spec or usage"})
final class DemoCommand implements Callable<Integer> {
  static final Path EXAMPLE_SPEC = Path.of("examples", "customers.yaml");
  static final Path EXAMPLE_INPUT = Path.of("examples", "customers-changes.jsonl");
  private static final String DEMO_MARKER = ".dimstream-demo";

  @Option(names = "--config", description = "Dimension spec; default: " + "examples/customers.yaml. Given several "
      + "times (each with its --input, in the same order): every dimension in one service.")
  List<Path> configs = new ArrayList<>();

  @Option(names = "--input", description = "Change events (.jsonl or .csv) of the --config at the same place; default:"
      + " examples/customers-changes.jsonl.")
  List<Path> inputs = new ArrayList<>();

  @Option(names = "--exit-when-done", description = "Stop and exit once the table has caught up (for scripts).")
  boolean exitWhenDone;

  @Option(names = "--timeout", description = "Give up when the table has not caught up after this many seconds; "
      + "default: ${DEFAULT-VALUE}.")
  long timeoutSeconds = 600;

  @Option(names = "--source", description = "postgres: capture a table of an embedded Postgres (wal_level=logical) "
      + "with the database source while a workload of transactions runs, instead of sending a change file.")
  String source;

  @Option(names = "--enrich", description = "An enrichment spec of the dimension: its facts (--facts) are sent and "
      + "enriched first, then the changes, so the facts the dimension learns about late are corrected "
      + "(docs/enrichment.md).")
  Path enrich;

  @Option(names = "--facts", description = "With --enrich: the facts (.jsonl).")
  Path facts;

  @Mixin
  ServiceOptions options = new ServiceOptions();

  @Override
  public Integer call() throws Exception {
    if (source != null) {
      return PostgresDemo.run(source, options, exitWhenDone, timeoutSeconds);
    }
    if (configs.isEmpty()) {
      configs.add(EXAMPLE_SPEC);
    }
    if (inputs.isEmpty() && configs.size() == 1) {
      inputs.add(EXAMPLE_INPUT);
    }
    if (inputs.size() != configs.size()) {
      throw new CliErrors.UsageError("Each --config needs its --input (" + configs.size() + " --config, "
          + inputs.size() + " --input). Fix: give the change file of every dimension, in the order of the specs.");
    }
    for (Path input : inputs) {
      if (!Files.isRegularFile(input)) {
        throw CliErrors.missingInput(input);
      }
    }
    if (options.dataDir == null) {
      options.dataDir = Path.of("data", "demo");
    }
    if (configs.size() > 1) {
      return SeveralDimensionsDemo.run(configs, inputs, options, enrich != null, exitWhenDone, timeoutSeconds);
    }
    Path config = configs.get(0);
    Path input = inputs.get(0);
    if ((enrich == null) != (facts == null)) {
      throw new CliErrors.UsageError("--enrich and --facts go together. Fix: give both, e.g. --enrich "
          + "examples/orders-enrich.yaml --facts examples/orders.jsonl, or neither");
    }
    if (facts != null && !Files.isRegularFile(facts)) {
      throw new CliErrors.InputError(facts + ": no such file. Fix: pass a JSON-lines file of facts with --facts");
    }
    freshDemoDir(options.dataDir);
    DimensionSpec spec = demoSpec(config, options);
    PrintStream out = System.out;
    java.util.List<io.dimstream.enrich.EnrichmentSpec> enrichments = enrich == null ? java.util.List.of()
        : Specs.loadEnrichments(java.util.List.of(enrich), spec);
    try (DimensionService service = DimensionService.start(spec, enrichments, options.bootstrapServers,
        java.time.Clock.systemUTC())) {
      for (io.dimstream.enrich.EnrichmentSpec e : enrichments) {
        long factsSent = FactsProducer.produce(e, facts, service.kafka());
        out.printf("Sent %,d facts to %s; waiting for their first enriched records...%n", factsSent, e.facts().topic());
        // the changes go only once every fact was enriched as the dimension stood without them, so that what the
        // dimension learns later shows as corrections, however the service's threads interleave the two topics
        if (!EnrichmentDemo.awaitFirstRecords(service, e, facts, Duration.ofSeconds(timeoutSeconds))) {
          System.err.println("The facts were not enriched within " + timeoutSeconds + " s; see the log above.");
          return 1;
        }
      }
      long sent = ProduceCommand.produce(spec, input, service.kafka());
      out.printf("Sent %,d change records to %s; waiting for the table to catch up...%n", sent, spec.topics().changes());
      DimensionSpec s = spec;
      boolean caughtUp = CatchUp.await(
          () -> CatchUp.streamsCaughtUp(service.kafka(), s, "dimstream-" + s.name())
              && CatchUp.tableCaughtUp(service.kafka(), s, service.table()),
          Duration.ofSeconds(timeoutSeconds));
      if (!caughtUp) {
        System.err.println("The table did not catch up within " + timeoutSeconds + " s; see the log above.");
        return 1;
      }
      printSummary(out, service, sent);
      for (io.dimstream.enrich.EnrichmentSpec e : enrichments) {
        if (!EnrichmentDemo.awaitAndPrint(out, service, e, facts, Duration.ofSeconds(timeoutSeconds))) {
          System.err.println("The enriched topic did not settle within " + timeoutSeconds + " s; see the log above.");
          return 1;
        }
      }
      if (!exitWhenDone) {
        serveUntilStopped(out, service);
      }
    }
    return 0;
  }

  /** Says so, then blocks until the process is stopped (Ctrl-C, SIGTERM), which closes {@code service}. */
  static void serveUntilStopped(PrintStream out, AutoCloseable service) throws InterruptedException {
    out.println("Serving until Ctrl-C.");
    CountDownLatch forever = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        service.close();
      } catch (Exception e) {
        System.err.println("Could not stop cleanly: " + e);
      }
      forever.countDown();
    }));
    forever.await();
  }

  /**
   * The spec of {@code config} with the command line's service settings, compacting every second so the table follows
   * at once; refused when its table location holds a table already (the demo's broker is always new).
   */
  static DimensionSpec demoSpec(Path config, ServiceOptions options) {
    DimensionSpec spec = options.apply(Specs.load(config));
    if (holdsTable(spec.service().tableStore())) {
      throw new CliErrors.UsageError(spec.service().tablePath() + " already holds a table, fed by another Kafka. Fix: "
          + "pass a new location with --table (the demo starts a fresh broker every time)");
    }
    return spec.withService(spec.service().withCompaction(Duration.ofSeconds(1), spec.service().compactionMaxRecords()));
  }

  static void printSummary(PrintStream out, DimensionService service, long sent) {
    DimensionSpec spec = service.spec();
    DeltaTable table = service.table();
    long versions = 0;
    long current = 0;
    Version sample = null;
    try (Stream<Version> rows = table.latest().scan()) {
      for (Iterator<Version> it = rows.iterator(); it.hasNext(); ) {
        Version v = it.next();
        versions++;
        if (v.isCurrent()) {
          current++;
          if (sample == null) {
            sample = v;
          }
        }
      }
    }
    long dlq = TopicReader.readAll(service.kafka(), spec.topics().dlq(), false).records();
    String tablePath = spec.service().tablePath().toString();
    out.println();
    out.println("dimstream demo: " + spec.name());
    out.printf("  change records sent     %,d%n", sent);
    out.printf("  versions in the table   %,d%n", versions);
    out.printf("  current rows            %,d%n", current);
    out.printf("  late events spliced     %,d%n", service.metrics().lateEventsSpliced());
    out.printf("  dead-letter records     %,d  (topic %s)%n", dlq, spec.topics().dlq());
    out.printf("  table version           %d%n", table.latest().version());
    out.printf("  table                   %s%n", tablePath);
    out.println();
    out.println("Query it:");
    String key = sample == null ? "1" : String.valueOf(sample.key().values().get(0));
    out.printf("  ./dimstream query history --table %s --key %s%n", tablePath, key);
    String at = sample == null ? "2026-01-01T00:00:00Z"
        : new io.dimstream.codec.VersionJson(spec).row(sample).get(spec.output().validFrom()).asText();
    out.printf("  ./dimstream query as-of --table %s --at %s%n", tablePath, at);
    String base = (spec.service().httpSecurity().tlsOn() ? "https://" : "http://") + spec.service().httpHost() + ":" + service.httpPort();
    out.printf("  curl %s/dimensions/%s/keys/%s/history%n", base, spec.name(), key);
    out.printf("  open %s/ for the timeline page%n", base);
    out.printf("  duckdb -c \"INSTALL delta; LOAD delta; SELECT * FROM delta_scan('%s') LIMIT 10\"%n", tablePath);
  }

  /** The demo always starts from scratch, but only ever deletes a directory an earlier demo made. */
  static void freshDemoDir(Path dir) throws IOException {
    if (Files.exists(dir.resolve(DEMO_MARKER))) {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    } else if (Files.exists(dir)) {
      try (Stream<Path> entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          throw new CliErrors.UsageError(dir + " exists and was not made by the demo. Fix: pass an empty or new "
              + "directory with --data-dir");
        }
      }
    }
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(DEMO_MARKER), "made by dimstream demo; deleted by the next demo run\n");
  }

  private static boolean holdsTable(io.dimstream.storage.ObjectStore store) {
    try {
      return DeltaTable.exists(store);
    } catch (java.io.IOException e) {
      throw new CliErrors.UsageError(store.location() + ": cannot list the table location (" + e.getMessage()
          + "). Fix: check the location and its credentials.");
    }
  }
}
