package io.dimstream.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.change.DeadLetters;
import io.dimstream.codec.VersionJson;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.topology.TopologyRunner;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dimstream replay}: the history a file of change events makes, computed by the real topology. */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = {"Prints the history a file of change events makes, computed by the real topology (no broker).",
        "Runs the dimension's Kafka Streams topology in-process over the file in file order and prints the resulting "
        + "history as JSON lines, one version per line, sorted by key then valid_from: the key columns, the "
        + "attributes, valid_from, valid_to, is_current.",
        "The history is rebuilt from the records the topology emits to the versions topic, exactly as a consumer of "
        + "that topic would see it. Rejected records go to --dlq, or are counted on stderr."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the history was printed (rejected records do not change this)",
        "1:the input file (or the --dlq file) cannot be read or written",
        "2:bad spec or usage"})
final class ReplayCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--config", required = true, description = "The dimension spec (YAML).")
  Path config;

  @Option(names = "--input", required = true,
      description = "Change events: .jsonl (one record value per non-blank line, as-is) or .csv with a header.")
  Path input;

  @Option(names = "--dlq", description = "Write rejected records here as JSON lines "
      + "{\"reason\": .., \"detail\": .., \"record\": ..}; default: only their count on stderr.")
  Path dlq;

  @Spec
  CommandSpec command;

  @Override
  public Integer call() throws Exception {
    DimensionSpec spec = Specs.load(config);
    if (!Files.isRegularFile(input)) {
      throw CliErrors.missingInput(input);
    }
    TopologyRunner.Replay result;
    try (InputFiles.LineReader lines = InputFiles.forTopic(input, spec);
        BufferedWriter dlqOut = dlq == null ? null : Files.newBufferedWriter(dlq, StandardCharsets.UTF_8);
        Progress progress = Progress.onStderr("records", InputFiles.countRecords(input))) {
      Iterator<byte[]> values = new Iterator<>() {
        @Override
        public boolean hasNext() {
          return lines.hasNext();
        }

        @Override
        public byte[] next() {
          progress.step(1);
          return lines.next().value();
        }
      };
      result = TopologyRunner.replay(spec, values, r -> {
        if (dlqOut != null) {
          writeRejected(dlqOut, r);
        }
      });
    } catch (UncheckedIOException e) {
      throw new CliErrors.InputError("Cannot replay " + input + ": " + e.getMessage()
          + ". Fix: check that the files are readable (and --dlq writable)", e);
    } catch (IOException e) {
      throw new CliErrors.InputError("Cannot replay " + input + ": " + e
          + ". Fix: check that the files are readable (and --dlq writable)", e);
    }
    VersionJson json = new VersionJson(spec);
    PrintWriter out = command.commandLine().getOut();
    for (Version v : result.history()) {
      out.println(json.replayLine(v));
    }
    out.flush();
    PrintWriter err = command.commandLine().getErr();
    err.printf("Replayed %,d records: %,d versions, %,d rejected%s%n", result.records(), result.history().size(),
        result.rejected(), result.rejected() == 0 ? "" : dlq == null ? " (pass --dlq FILE to see them)" : " (in " + dlq + ")");
    err.flush();
    return 0;
  }

  private static void writeRejected(BufferedWriter out, TopologyRunner.Rejection r) {
    ObjectNode n = DeadLetters.fileLine(r.reason(), r.detail(), r.value());
    try {
      out.write(n.toString());
      out.newLine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
