package io.dimstream.cli;

import io.dimstream.change.ChangeException;
import io.dimstream.spec.SpecException;
import io.dimstream.topology.TopologyException;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** The {@code dimstream} command: a thin dispatcher to its subcommands. */
@Command(name = "dimstream", mixinStandardHelpOptions = true, version = "dimstream 0.1.0",
    description = "SCD Type 2 dimension tables kept up to date from Kafka change streams, stored as Delta Lake tables.",
    subcommands = {RunCommand.class, DemoCommand.class, ProduceCommand.class, ReplayCommand.class, BackfillCommand.class, SparkBackfillCommand.class,
        EnrichCommand.class,
        ApplySnapshotCommand.class,
        QueryCommand.class, TableCommand.class, CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:success", "1:an input file, table or broker failed", "2:bad spec or usage"})
public final class Main implements Runnable {
  /** Exit code of a failing input file, table or broker. */
  public static final int INPUT_ERROR = 1;
  /** Exit code of a bad spec or command line. */
  public static final int USAGE_ERROR = 2;

  @Spec
  CommandSpec command;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(command.commandLine(), "Missing command: give one of "
        + command.subcommands().keySet());
  }

  /** The command line with dimstream's error handling: a message (no stack trace) and the documented exit code. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setExecutionExceptionHandler((e, line, parsed) -> {
      line.getErr().println("dimstream " + line.getCommandName() + ": " + e.getMessage());
      line.getErr().flush();
      if (e instanceof CliErrors.UsageError || e instanceof SpecException || e instanceof ChangeException
          || e instanceof TopologyException) {
        return USAGE_ERROR;
      }
      if (e instanceof CliErrors.InputError || e instanceof io.dimstream.DimstreamException) {
        return INPUT_ERROR;
      }
      throw e;
    });
    return cl;
  }

  public static void main(String[] args) {
    CommandLine cl = commandLine();
    PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8),
        1 << 16), false);
    cl.setOut(out);
    int code = cl.execute(args);
    out.flush();
    System.exit(code);
  }
}
