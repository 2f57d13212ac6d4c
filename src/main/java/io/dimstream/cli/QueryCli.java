package io.dimstream.cli;

import io.dimstream.DimstreamException;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.QueryException;
import io.dimstream.query.VersionTable;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.TableLocation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;

/** What the query and table commands share: how a table is opened and how errors become exit codes. */
final class QueryCli {
  static final int OK = 0;
  static final int DATA = 1;
  static final int USAGE = 2;

  /** Opens a table directory; replaced in tests. */
  static Function<TableLocation, VersionTable> opener = t -> DeltaVersionTable.open(ObjectStores.open(t));

  private QueryCli() {}

  /**
   * Opens {@code table} for a command that only reads it, first printing to {@code spec}'s error stream the
   * warning of a table whose protocol misses features (Delta Spark refuses it) with the command that repairs it.
   */
  static VersionTable openForReading(CommandSpec spec, TableLocation table) {
    VersionTable t = opener.apply(table);
    if (t instanceof DeltaVersionTable d) {
      d.table().incompleteProtocolWarning().ifPresent(w -> {
        spec.commandLine().getErr().println("warning: " + w);
        spec.commandLine().getErr().flush();
      });
    }
    return t;
  }

  /**
   * Runs {@code body}; a {@link QueryException} of bad input prints its message and gives {@value #USAGE}, any other
   * dimstream error gives {@value #DATA}.
   */
  static int run(CommandSpec spec, Callable<Integer> body) throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    try {
      return body.call();
    } catch (QueryException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return e.reason() == QueryException.Reason.BAD_INPUT ? USAGE : DATA;
    } catch (DimstreamException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return DATA;
    } finally {
      spec.commandLine().getOut().flush();
    }
  }
}
