package io.dimstream.cli;

import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionHost;
import io.dimstream.service.DimensionService;
import io.dimstream.spec.DimensionSpec;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code dimstream demo --config A --input A.jsonl --config B --input B.jsonl}: several dimensions in one service, as
 * {@code run --config DIR} hosts them (one broker, one query endpoint): each dimension's changes are sent, each table
 * is waited for, and a summary per dimension is printed.
 */
final class SeveralDimensionsDemo {
  private SeveralDimensionsDemo() {}

  static int run(List<Path> configs, List<Path> inputs, ServiceOptions options, boolean enrich, boolean exitWhenDone,
      long timeoutSeconds) throws Exception {
    if (enrich) {
      throw new CliErrors.UsageError("--enrich shows one dimension's enrichment. Fix: run the demo of that dimension"
          + " alone (one --config), or run the dimensions and their enrichments with run --config DIR.");
    }
    if (options.table != null) {
      throw CliErrors.tableWithSeveralDimensions();
    }
    DemoCommand.freshDemoDir(options.dataDir);
    List<DimensionSpec> specs = new ArrayList<>();
    for (Path config : configs) {
      specs.add(DemoCommand.demoSpec(config, options));
    }
    PrintStream out = System.out;
    try (DimensionHost host = DimensionHost.start(specs, options.bootstrapServers, Clock.systemUTC())) {
      if (!host.failures().isEmpty()) {
        System.err.println("Some dimensions could not start: " + host.failures() + "; see the log above.");
        return 1;
      }
      Map<String, DimensionService> running = host.running();
      List<Long> sent = new ArrayList<>();
      for (int i = 0; i < specs.size(); i++) {
        DimensionSpec spec = specs.get(i);
        long n = ProduceCommand.produce(spec, inputs.get(i), running.get(spec.name()).kafka());
        out.printf("Sent %,d change records to %s%n", n, spec.topics().changes());
        sent.add(n);
      }
      out.println("Waiting for the tables to catch up...");
      for (int i = 0; i < specs.size(); i++) {
        DimensionSpec spec = specs.get(i);
        DimensionService service = running.get(spec.name());
        boolean caughtUp = CatchUp.await(
            () -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
                && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()),
            Duration.ofSeconds(timeoutSeconds));
        if (!caughtUp) {
          System.err.println("The table of " + spec.name() + " did not catch up within " + timeoutSeconds
              + " s; see the log above.");
          return 1;
        }
      }
      for (int i = 0; i < specs.size(); i++) {
        DemoCommand.printSummary(out, running.get(specs.get(i).name()), sent.get(i));
      }
      out.printf("%nOne service, %d dimensions: /health shows each under by_dimension.%n", specs.size());
      if (!exitWhenDone) {
        DemoCommand.serveUntilStopped(out, host);
      }
    }
    return 0;
  }
}
