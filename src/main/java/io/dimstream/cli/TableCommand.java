package io.dimstream.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.KeyText;
import io.dimstream.query.TableCommit;
import io.dimstream.query.TableVerifier;
import io.dimstream.query.TimeTravel;
import io.dimstream.query.VersionSource;
import io.dimstream.query.VersionTable;
import io.dimstream.storage.TableLocation;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.OptimizeResult;
import io.dimstream.table.VacuumResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dimstream table history|optimize|vacuum|verify|upgrade}: maintenance and checks of a dimension's Delta table. */
@Command(name = "table", mixinStandardHelpOptions = true,
    description = "Shows, maintains and checks a dimension's Delta table.",
    subcommands = {TableCommand.History.class, TableCommand.Optimize.class, TableCommand.Vacuum.class,
        TableCommand.Verify.class, TableCommand.Upgrade.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:done", "1:the table is missing or unreadable, or verify found broken invariants",
        "2:bad usage"})
final class TableCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  private abstract static class Base implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--table", required = true, paramLabel = "TABLE", converter = TableLocationConverter.class,
        description = "The table: a local directory, s3://bucket/prefix or az://container/prefix (credentials and "
            + "endpoint from the environment: AWS_REGION, AWS_ENDPOINT_URL_S3, AZURE_STORAGE_CONNECTION_STRING, ...).")
    TableLocation table;

    @Override
    public Integer call() throws Exception {
      return QueryCli.run(spec, () -> run(writes() ? QueryCli.opener.apply(table)
          : QueryCli.openForReading(spec, table), spec.commandLine().getOut()));
    }

    abstract int run(VersionTable t, PrintWriter out);

    /** Whether the command writes the table (and so completes its protocol itself) rather than only reading it. */
    boolean writes() {
      return false;
    }

    static DeltaTable delta(VersionTable t) {
      if (t instanceof DeltaVersionTable d) {
        return d.table();
      }
      throw new IllegalStateException("not a Delta table: " + t);
    }
  }

  @Command(name = "history",
      description = "The table's commits, newest first: version, time, operation and its metrics.",
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:done", "1:the table is missing or unreadable", "2:bad usage"})
  static final class History extends Base {
    @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "At most N commits (default 20).")
    int limit;

    @Option(names = "--format", paramLabel = "FORMAT", converter = RowPrinter.OutputFormat.Converter.class,
        description = "table, json or csv. Default: table when stdout is a terminal, else json.")
    RowPrinter.OutputFormat format;

    @Override
    int run(VersionTable t, PrintWriter out) {
      RowPrinter.OutputFormat f = RowPrinter.OutputFormat.orDefault(format);
      try (RowPrinter p = new RowPrinter(out, f, List.of("version", "timestamp", "operation", "metrics"))) {
        for (TableCommit c : t.commits(limit)) {
          Map<String, String> metrics = new TreeMap<>(c.operationMetrics());
          ObjectNode n = JsonNodeFactory.instance.objectNode();
          n.put("version", c.version());
          n.put("timestamp", c.timestamp().toString());
          n.put("operation", c.operation());
          ObjectNode m = n.putObject("operationMetrics");
          metrics.forEach(m::put);
          StringBuilder b = new StringBuilder();
          metrics.forEach((k, v) -> b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(v));
          p.row(n.toString(), List.of(Long.toString(c.version()), c.timestamp().toString(), c.operation(),
              b.toString()));
        }
      }
      return QueryCli.OK;
    }
  }

  @Command(name = "optimize",
      description = "Merges small files of closed versions into larger ones in one OPTIMIZE commit; rows unchanged.",
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:done (also when there was nothing to merge)", "1:the table is missing or unreadable",
          "2:bad usage"})
  static final class Optimize extends Base {
    @Override
    boolean writes() {
      return true;
    }

    @Override
    int run(VersionTable t, PrintWriter out) {
      OptimizeResult r = delta(t).optimize();
      if (r.committed()) {
        out.printf("Optimized: table version %d, %d files merged into %d, %,d rows rewritten%n", r.version(),
            r.filesRemoved(), r.filesAdded(), r.rowsRewritten());
      } else {
        out.printf("Nothing to optimize at table version %d%n", r.version());
      }
      return QueryCli.OK;
    }
  }

  @Command(name = "upgrade",
      description = {"Lists in the table's Delta protocol every table feature its metadata puts in force (tables of "
          + "earlier releases miss 'invariants', and Delta Spark refuses them), in one commit that changes nothing "
          + "else.",
          "With --deletion-vectors, also moves a copy-on-write table to merge-on-read with deletion vectors (Delta "
          + "protocol reader 3 / writer 7) in one more commit; readers without deletion-vector support cannot read "
          + "it afterwards."},
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:done (also when there was nothing to upgrade)",
          "1:the table is missing or unreadable, or another newer protocol governs it", "2:bad usage"})
  static final class Upgrade extends Base {
    @Option(names = "--deletion-vectors",
        description = "Also enable deletion vectors (merge-on-read).")
    boolean deletionVectors;

    @Override
    boolean writes() {
      return true;
    }

    @Override
    int run(VersionTable t, PrintWriter out) {
      DeltaTable d = delta(t);
      List<String> added = d.completeProtocol();
      if (added.isEmpty()) {
        out.printf("Protocol complete: table version %d lists every table feature its metadata puts in force%n",
            d.latest().version());
      } else {
        out.printf("Protocol completed: table version %d adds the table feature(s) %s%n", d.latest().version(),
            added);
      }
      if (!deletionVectors) {
        return QueryCli.OK;
      }
      if (d.upgradeToDeletionVectors()) {
        out.printf("Upgraded: table version %d uses deletion vectors (reader 3 / writer 7)%n", d.latest().version());
      } else {
        out.printf("Nothing to upgrade: table version %d already uses deletion vectors%n", d.latest().version());
      }
      return QueryCli.OK;
    }
  }

  @Command(name = "vacuum",
      description = "Deletes data files no table version within the retention needs (the log is never touched).",
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:done", "1:the table is missing or unreadable, or the retention is out of range",
          "2:bad usage"})
  static final class Vacuum extends Base {
    @Override
    boolean writes() {
      return true;
    }

    @Option(names = "--retain", paramLabel = "DURATION", defaultValue = "7d", converter = DurationConverter.class,
        description = "Keep files needed by versions of the last DURATION (30d, 12h, 90m, or ISO-8601 such as "
            + "P7D; default 7d; time travel further back fails after vacuum).")
    Duration retain;

    @Override
    int run(VersionTable t, PrintWriter out) {
      VacuumResult r = delta(t).vacuum(retain);
      out.printf("Vacuumed: %d files deleted (%,d bytes)%n", r.deletedFiles().size(), r.bytesDeleted());
      return QueryCli.OK;
    }
  }

  /** Reads {@code --retain} with the spec's duration syntax. */
  static final class DurationConverter implements picocli.CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return io.dimstream.spec.Durations.parse(value).orElseThrow(() -> CliErrors.badDuration(value));
    }
  }

  @Command(name = "verify",
      description = {"Checks the SCD2 invariants over the whole table: per key, no overlapping versions, at most "
          + "one open version, valid_from < valid_to, and is_current true exactly when valid_to is null; and that "
          + "the Delta protocol lists every table feature the metadata puts in force.",
          "Lists the offending keys (at most " + TableVerifier.MAX_LISTED + ")."},
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:every invariant holds", "1:an invariant is broken, the protocol misses a feature, or the table is missing or unreadable",
          "2:bad usage"})
  static final class Verify extends Base {
    @ArgGroup(exclusive = true)
    QueryCommand.Travel travel;

    @Override
    int run(VersionTable t, PrintWriter out) {
      TimeTravel when = travel == null ? TimeTravel.LATEST : travel.version != null
          ? new TimeTravel.AtVersion(travel.version) : new TimeTravel.AtTimestamp(travel.timestamp);
      VersionSource source = t.at(when);
      List<String> missing = t instanceof DeltaVersionTable d ? d.table().missingProtocolFeatures() : List.of();
      if (!missing.isEmpty()) {
        out.printf("FAILED: table version %d: the Delta protocol does not list the table feature(s) %s that the "
            + "metadata puts in force, so Delta Spark refuses the table. Fix: dimstream table upgrade --table %s%n",
            t.at(TimeTravel.LATEST).tableVersion(), missing, table);
        return QueryCli.DATA;
      }
      TableVerifier.Report r = TableVerifier.verify(source);
      if (r.ok()) {
        out.printf("OK: table version %d, %,d versions of %,d keys; no overlaps, at most one open version per key, "
            + "is_current consistent with valid_to%n", source.tableVersion(), r.rows(), r.keys());
        return QueryCli.OK;
      }
      List<String> lines = new ArrayList<>();
      for (TableVerifier.Violation v : r.violations()) {
        lines.add("key " + KeyText.format(t.spec(), v.key()) + ": " + v.problem());
      }
      out.printf("FAILED: table version %d, %,d problems in %,d versions of %,d keys%n", source.tableVersion(),
          r.problems(), r.rows(), r.keys());
      lines.forEach(out::println);
      if (r.problems() > r.violations().size()) {
        out.printf("... and %,d more%n", r.problems() - r.violations().size());
      }
      return QueryCli.DATA;
    }
  }
}
