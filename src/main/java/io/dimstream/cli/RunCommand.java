package io.dimstream.cli;

import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.service.DimensionHost;
import io.dimstream.service.DimensionService;
import io.dimstream.source.PostgresCapture;
import io.dimstream.source.SourcedSpecs;
import io.dimstream.spec.DimensionSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dimstream run}: the service, until SIGTERM or Ctrl-C. */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = {"Runs a dimension: topology, compactor and query endpoint, until stopped (Ctrl-C, SIGTERM).",
        "With no Kafka configured it starts an embedded single-node broker under the data directory.",
        "A restart resumes where the last run stopped, after a clean stop or a crash.",
        "Given a directory of specs (or --config several times) it runs every dimension in one process: one broker,",
        "one query endpoint; a dimension that fails stops alone."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:stopped cleanly", "1:a part of the service failed (see the log)", "2:bad spec or usage"})
final class RunCommand implements Callable<Integer> {

  @Option(names = "--config", required = true, description = "The dimension spec (YAML); or a directory of specs"
      + " (*.yaml, *.yml), or this option given several times: every dimension in one process.")
  List<Path> config = new ArrayList<>();

  @Option(names = "--enrich", description = "An enrichment spec (YAML) of this dimension, run in the same application;"
      + " may be given several times (docs/enrichment.md). With several dimensions each runs with the one it names,"
      + " as do the enrichment specs among the --config files and directories.")
  List<Path> enrich = new ArrayList<>();

  @Option(names = "--reload-interval", defaultValue = "10s", converter = TableCommand.DurationConverter.class,
      description = "With several dimensions: how often to look at the spec files for a dimension added, removed or"
          + " changed, and run the new set without a restart (default ${DEFAULT-VALUE}; 0s: never).")
  Duration reloadInterval;

  @Mixin
  ServiceOptions options = new ServiceOptions();

  /** The spec to run: the file's, with the command line's overrides of its service settings. */
  SourcedSpecs.Sourced spec() {
    return Specs.loadSourced(config.get(0), options::apply);
  }

  /** Whether several dimensions run in this process: a directory, or --config given more than once. */
  boolean hostsSeveral() {
    return config.size() > 1 || Files.isDirectory(config.get(0));
  }

  /** The dimension specs of every --config: a file as it is, a directory's *.yaml and *.yml files by name. */
  List<Path> specFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path c : config) {
      if (Files.isDirectory(c)) {
        yamlFiles(c).stream().filter(p -> !Specs.isEnrichment(p)).forEach(files::add);
      } else if (!hostsSeveral() || !Specs.isEnrichment(c)) {
        files.add(c);
      }
    }
    return files;
  }

  /**
   * The enrichment specs to run with several dimensions: every --enrich, and the enrichment specs among the --config
   * files and directories (each runs with the dimension it names).
   */
  List<Path> enrichmentFiles() throws IOException {
    List<Path> files = new ArrayList<>(enrich);
    for (Path c : config) {
      List<Path> candidates = Files.isDirectory(c) ? yamlFiles(c) : List.of(c);
      candidates.stream().filter(Specs::isEnrichment).filter(p -> !files.contains(p)).forEach(files::add);
    }
    return files;
  }

  /** A directory's *.yaml and *.yml files, by name. */
  private static List<Path> yamlFiles(Path dir) throws IOException {
    try (Stream<Path> in = Files.list(dir)) {
      return in.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().matches(".*\\.ya?ml")).sorted()
          .toList();
    }
  }

  @Override
  public Integer call() throws Exception {
    if (hostsSeveral()) {
      return runSeveral();
    }
    SourcedSpecs.Sourced sourced = spec();
    DimensionSpec spec = sourced.spec();
    List<EnrichmentSpec> enrichments = Specs.loadEnrichments(enrich, spec);
    DimensionService service = DimensionService.start(spec, enrichments, options.bootstrapServers, Clock.systemUTC());
    PostgresCapture capture = DatabaseSource.start(service, sourced.source());
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      DatabaseSource.close(capture);
      service.close();
      stopped.countDown();
      // Without this the JVM reports a SIGTERM as exit code 143 even after a clean stop; the service is
      // closed, so nothing is lost by not waiting for other hooks.
      Runtime.getRuntime().halt(0);
    }, "dimstream-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    DatabaseSource.awaitFailure(service, capture);
    // A part failed: close what is left, then report.
    Runtime.getRuntime().removeShutdownHook(hook);
    DatabaseSource.close(capture);
    service.close();
    return 1;
  }

  /** Every dimension of the --config files and directories in this process, until stopped or none is left. */
  private int runSeveral() throws Exception {
    if (options.table != null) {
      throw CliErrors.tableWithSeveralDimensions();
    }
    SpecReloader.Loaded loaded = loadSeveral();
    DimensionHost host = DimensionHost.start(loaded.specs(), loaded.enrichments(), options.bootstrapServers,
        Clock.systemUTC());
    List<Path> watched = new ArrayList<>(config);
    watched.addAll(enrich);
    SpecReloader reloader = reloadInterval.isZero() ? null
        : SpecReloader.start(host, this::loadSeveral, watched, loaded, reloadInterval);
    Thread hook = new Thread(() -> {
      if (reloader != null) {
        reloader.close();
      }
      host.close();
      Runtime.getRuntime().halt(0);
    }, "dimstream-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    host.awaitNoneRunning();
    Runtime.getRuntime().removeShutdownHook(hook);
    if (reloader != null) {
      reloader.close();
    }
    host.close();
    return 1;
  }

  /**
   * Every dimension and enrichment spec of the --config files and directories and --enrich, each dimension with the
   * fingerprint of its spec file and of the enrichment files joined with it.
   */
  private SpecReloader.Loaded loadSeveral() throws IOException {
    List<DimensionSpec> specs = new ArrayList<>();
    Map<String, String> fingerprints = new HashMap<>();
    for (Path file : specFiles()) {
      SourcedSpecs.Sourced sourced = Specs.loadSourced(file, options::apply);
      if (sourced.source().isPresent()) {
        throw CliErrors.sourceWithSeveralDimensions(file);
      }
      specs.add(sourced.spec());
      fingerprints.put(sourced.spec().name(), SpecReloader.sha256(file));
    }
    Map<String, List<EnrichmentSpec>> enrichments = Specs.loadEnrichments(enrichmentFiles(), specs);
    for (Map.Entry<String, List<EnrichmentSpec>> e : enrichments.entrySet()) {
      StringBuilder fp = new StringBuilder(fingerprints.get(e.getKey()));
      for (EnrichmentSpec enrichment : e.getValue()) {
        fp.append(',').append(SpecReloader.sha256(enrichment.source()));
      }
      fingerprints.put(e.getKey(), fp.toString());
    }
    return new SpecReloader.Loaded(specs, enrichments, fingerprints);
  }
}
