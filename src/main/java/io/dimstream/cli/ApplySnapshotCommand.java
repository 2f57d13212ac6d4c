package io.dimstream.cli;

import io.dimstream.batch.Backfill;
import io.dimstream.batch.SnapshotApply;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.TableLocation;
import io.dimstream.table.DeltaTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dimstream apply-snapshot}: one full snapshot of the source, applied to an existing table in one commit. */
@Command(name = "apply-snapshot", mixinStandardHelpOptions = true,
    description = {"Applies one full snapshot of the source (JSON lines, one row per key) to an existing table in one",
        "MERGE commit: changed rows become versions, keys missing from the snapshot are closed at --at.",
        "Rows without the sequence column take --at. All or nothing: a bad row commits nothing."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the snapshot was applied", "1:bad snapshot file, older snapshot, or bad table",
        "2:bad spec or usage"})
final class ApplySnapshotCommand implements Callable<Integer> {

  @Option(names = "--config", required = true, description = "The dimension spec (YAML).")
  Path config;

  @Option(names = "--table", required = true, converter = TableLocationConverter.class,
      description = "The existing Delta table of the dimension: a local directory, s3://bucket/prefix or az://container/prefix.")
  TableLocation table;

  @Option(names = "--input", required = true, description = "The snapshot: .jsonl, one row per key.")
  Path input;

  @Option(names = "--at", required = true,
      description = "The snapshot's sequence (e.g. 2026-03-02T00:00:00Z): the valid_to of every missing key.")
  String at;

  @Override
  public Integer call() throws Exception {
    DimensionSpec spec = Specs.load(config);
    if (!Files.isRegularFile(input)) {
      throw CliErrors.missingInput(input);
    }
    ObjectStore store = ObjectStores.open(table, spec.service().storage());
    if (!DeltaTable.exists(store)) {
      throw new CliErrors.UsageError(table + " holds no table. Fix: give the table the dimension writes "
          + "(service.table_path), or create it first with `dimstream backfill`");
    }
    SnapshotApply.Result r;
    try (InputFiles.LineReader lines = InputFiles.open(input)) {
      r = new SnapshotApply(spec).apply(DeltaTable.open(store), rows(lines), input.toString(), at);
    }
    var c = r.commit();
    boolean rowsChanged = c.rowsInserted() + c.rowsUpdated() + c.rowsDeleted() > 0;
    System.err.printf("Snapshot of %s at %s: %,d rows, %,d keys closed; %s%n", spec.name(), at, r.rows(), r.closed(),
        !c.committed() ? "nothing changed, no commit"
            : rowsChanged ? "table version " + c.version() + " (MERGE: " + c.rowsInserted() + " inserted, "
                + c.rowsUpdated() + " updated, " + c.rowsDeleted() + " deleted)"
            : "no row changed; table version " + c.version() + " records the snapshot's rows as events beside the "
                + "table, for a later takeover");
    return 0;
  }

  private static Iterator<Backfill.Input> rows(InputFiles.LineReader lines) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return lines.hasNext();
      }

      @Override
      public Backfill.Input next() {
        InputFiles.Line line = lines.next();
        return new Backfill.Input(line.number(), line.value());
      }
    };
  }
}
