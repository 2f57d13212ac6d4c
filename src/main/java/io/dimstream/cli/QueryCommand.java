package io.dimstream.cli;

import io.dimstream.codec.VersionJson;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.query.AttributeFilter;
import io.dimstream.query.Change;
import io.dimstream.query.HistoryQueries;
import io.dimstream.query.KeyText;
import io.dimstream.query.QueryErrors;
import io.dimstream.query.SequenceTimes;
import io.dimstream.query.TimeTravel;
import io.dimstream.query.VersionRows;
import io.dimstream.query.VersionTable;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.TableLocation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dimstream query as-of|history|changes}: history questions against a dimension's Delta table. */
@Command(name = "query", mixinStandardHelpOptions = true,
    description = {"Answers history questions from a dimension's Delta table (offline: no Kafka needed).",
        "Times are values of the dimension's first sequence column: ISO-8601 timestamps with offset "
            + "(2024-01-01T06:00:00.500Z), dates (2024-01-31) or numbers, whichever that column is."},
    subcommands = {QueryCommand.AsOf.class, QueryCommand.History.class, QueryCommand.Changes.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the query ran", "1:the table is missing or unreadable, or the key has no version",
        "2:bad usage: unknown option, bad time, unknown column in --key or --where"})
final class QueryCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** Options every query subcommand takes. */
  static final class TableOptions {
    @Option(names = "--table", required = true, paramLabel = "TABLE", converter = TableLocationConverter.class,
        description = "The table: a local directory, s3://bucket/prefix or az://container/prefix (credentials and "
            + "endpoint from the environment: AWS_REGION, AWS_ENDPOINT_URL_S3, AZURE_STORAGE_CONNECTION_STRING, ...).")
    TableLocation table;

    @ArgGroup(exclusive = true)
    Travel travel;

    @Option(names = "--format", paramLabel = "FORMAT", converter = RowPrinter.OutputFormat.Converter.class,
        description = "table, json or csv. Default: table when stdout is a terminal, else json (JSON lines, "
            + "the rows `dimstream replay` prints).")
    RowPrinter.OutputFormat format;

    TimeTravel when() {
      if (travel == null) {
        return TimeTravel.LATEST;
      }
      if (travel.version != null) {
        return new TimeTravel.AtVersion(travel.version);
      }
      return new TimeTravel.AtTimestamp(travel.timestamp);
    }
  }

  /** Reads an ISO-8601 timestamp with offset (or epoch millis) as picocli option value; a bad one is exit code 2. */
  static final class InstantConverter implements picocli.CommandLine.ITypeConverter<java.time.Instant> {
    @Override
    public java.time.Instant convert(String value) {
      try {
        return io.dimstream.types.ColumnValues.parseTimestamp(value.trim());
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** Table time travel: a version or a commit time. */
  static final class Travel {
    @Option(names = "--version", paramLabel = "N", description = "Read table version N (time travel).")
    Long version;

    @Option(names = "--table-timestamp", paramLabel = "TS", converter = InstantConverter.class,
        description = "Read the table as committed at TS (ISO-8601): the latest version committed at or before it.")
    java.time.Instant timestamp;
  }

  private abstract static class Base implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Mixin
    TableOptions options;

    @Override
    public Integer call() throws Exception {
      return QueryCli.run(spec, () -> {
        VersionTable table = QueryCli.openForReading(spec, options.table);
        HistoryQueries q = new HistoryQueries(table.at(options.when()));
        return run(q, RowPrinter.OutputFormat.orDefault(options.format), spec.commandLine().getOut());
      });
    }

    abstract int run(HistoryQueries q, RowPrinter.OutputFormat format, PrintWriter out);

    static Set<BusinessKey> keys(DimensionSpec spec, List<String> texts) {
      Set<BusinessKey> keys = new LinkedHashSet<>();
      if (texts != null) {
        texts.forEach(t -> keys.add(KeyText.parse(spec, t)));
      }
      return keys;
    }

    static long printVersions(DimensionSpec spec, Stream<Version> rows, RowPrinter.OutputFormat format,
        PrintWriter out) {
      VersionRows shape = new VersionRows(spec);
      VersionJson json = new VersionJson(spec);
      try (RowPrinter p = new RowPrinter(out, format, shape.versionHeader())) {
        rows.forEach(v -> p.row(format == RowPrinter.OutputFormat.JSON ? json.replayLine(v) : null,
            format == RowPrinter.OutputFormat.JSON ? null : shape.cells(v)));
        return p.rows();
      }
    }
  }

  @Command(name = "as-of",
      description = {"The dimension as it was valid at --at: the versions with valid_from <= T < valid_to "
          + "(open versions included), one per key, in table order.",
          "Example: dimstream query as-of --table data/customers --at 2024-01-01T06:00:00Z --where city=Paris"},
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:the query ran (even with no rows)", "1:the table is missing or unreadable",
          "2:bad usage: bad --at, unknown column in --key or --where"})
  static final class AsOf extends Base {
    @Option(names = "--at", required = true, paramLabel = "T", description = "The time T.")
    String at;

    @Option(names = "--key", paramLabel = "K", description = "Only this key (repeatable): 42, or a=1,b=x for a "
        + "composite key.")
    List<String> keys;

    @Option(names = "--where", paramLabel = "COL=VALUE", description = "Only rows whose key or attribute column "
        + "COL equals VALUE (repeatable, ANDed; COL= matches null).")
    List<String> where;

    @Override
    int run(HistoryQueries q, RowPrinter.OutputFormat format, PrintWriter out) {
      DimensionSpec s = q.spec();
      long t = SequenceTimes.parse(s, at);
      Set<BusinessKey> ks = keys(s, keys);
      List<AttributeFilter> filters = new ArrayList<>();
      if (where != null) {
        where.forEach(w -> filters.add(AttributeFilter.parse(s, w)));
      }
      try (Stream<Version> rows = q.asOf(t, ks, filters)) {
        printVersions(s, rows, format, out);
      }
      return QueryCli.OK;
    }
  }

  @Command(name = "history",
      description = {"Every version of one key, oldest first.",
          "Example: dimstream query history --table data/customers --key 42"},
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:the key has versions", "1:the table is missing or unreadable, or the key has no version",
          "2:bad usage: malformed key or unknown key column"})
  static final class History extends Base {
    @Option(names = "--key", required = true, paramLabel = "K", description = "The key: 42, or a=1,b=x.")
    String key;

    @Override
    int run(HistoryQueries q, RowPrinter.OutputFormat format, PrintWriter out) {
      BusinessKey k = KeyText.parse(q.spec(), key);
      List<Version> versions = q.history(k);
      if (versions.isEmpty()) {
        throw QueryErrors.noVersion(q.spec(), KeyText.format(q.spec(), k), "in table version " + q.tableVersion());
      }
      printVersions(q.spec(), versions.stream(), format, out);
      return QueryCli.OK;
    }
  }

  @Command(name = "changes",
      description = {"The changes in [--from, --to): every insert (a version opened with none closing), update "
          + "(a version closed and the next opened) and delete (a version closed with none opening), ordered by "
          + "time then key, with the attributes that changed.",
          "Example: dimstream query changes --table data/customers --from 2024-01-01T00:00:00Z --to 2024-01-02T00:00:00Z"},
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:the query ran (even with no changes)", "1:the table is missing or unreadable",
          "2:bad usage: bad --from/--to, --from not before --to, unknown key column"})
  static final class Changes extends Base {
    @Option(names = "--from", required = true, paramLabel = "T1", description = "Start of the range (inclusive).")
    String from;

    @Option(names = "--to", required = true, paramLabel = "T2", description = "End of the range (exclusive).")
    String to;

    @Option(names = "--key", paramLabel = "K", description = "Only this key (repeatable).")
    List<String> keys;

    @Override
    int run(HistoryQueries q, RowPrinter.OutputFormat format, PrintWriter out) {
      DimensionSpec s = q.spec();
      long t1 = SequenceTimes.parse(s, from);
      long t2 = SequenceTimes.parse(s, to);
      List<Change> changes = q.changes(t1, t2, keys(s, keys));
      VersionRows shape = new VersionRows(s);
      try (RowPrinter p = new RowPrinter(out, format, shape.changeHeader())) {
        for (Change c : changes) {
          p.row(format == RowPrinter.OutputFormat.JSON ? shape.json(c).toString() : null,
              format == RowPrinter.OutputFormat.JSON ? null : shape.cells(c));
        }
      }
      return QueryCli.OK;
    }
  }
}
