package io.dimstream.cli;

import io.dimstream.batch.Backfill;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.TableLocation;
import io.dimstream.table.DeltaTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dimstream backfill}: the streaming path's SCD2 engine and table writer without Kafka, for an initial
 * load or a rebuild from an archive. Events are applied in file order, exactly as the topology would apply them
 * arriving in that order, so the table equals the one the streaming path builds from the same file.
 */
@Command(name = "backfill", mixinStandardHelpOptions = true,
    description = {"Builds a dimension table from a file of change events without Kafka (initial load, rebuild).",
        "Same decoding, same SCD2 engine and same table writer as `run`; rejected records are counted",
        "(or written with --dlq) exactly as the dead-letter topic would get them."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the table was written", "1:bad input file or table", "2:bad spec or usage"})
final class BackfillCommand implements Callable<Integer> {

  @Option(names = "--config", required = true, description = "The dimension spec (YAML).")
  Path config;

  @Option(names = "--input", required = true, description = "Change events: .jsonl or .csv, in arrival order.")
  Path input;

  @Option(names = "--table", required = true, converter = TableLocationConverter.class, description = "The Delta "
      + "table to create (must not hold a table yet): a local directory, s3://bucket/prefix or az://container/prefix.")
  TableLocation table;

  @Option(names = "--dlq", description = "Write rejected records here as JSON lines {reason, detail, record}.")
  Path dlq;

  @Override
  public Integer call() throws Exception {
    DimensionSpec spec = Specs.load(config);
    if (!Files.isRegularFile(input)) {
      throw CliErrors.missingInput(input);
    }
    ObjectStore store = ObjectStores.open(table, spec.service().storage());
    if (DeltaTable.exists(store)) {
      throw new CliErrors.UsageError(table + " already holds a table, and backfill writes new tables only: its one "
          + "commit folds each key's events without the history already in the table. Fix: send a later archive "
          + "through the service (`dimstream produce --config " + config + " --input " + input + "` while `dimstream "
          + "run` serves the table: its events are applied like any other, late ones spliced within the lateness "
          + "horizon), or backfill the whole archive into a new location and point the service at it "
          + "(service.table_path); `run` takes a backfilled table over at its first start");
    }
    Backfill backfill = new Backfill(spec);
    Backfill.Loaded r;
    try (BackfillProgress progress = BackfillProgress.onStderr()) {
      if (!InputFiles.isCsv(input) && spec.inputFormat() != InputFormat.AVRO) {
        // JSON lines pass to the decoder byte for byte: read in blocks, split into lines on the decoding threads;
        // progress goes by the bytes read, as counting the records first takes a second read of the file
        progress.reading().bytes(Files.size(input));
        r = backfill.loadJsonLines(input, dlq, store, progress);
      } else {
        countInBackground(progress.reading());
        try (InputFiles.LineReader lines = InputFiles.forTopic(input, spec)) {
          // records are counted a decoded chunk at a time, as the .jsonl path counts them
          r = backfill.load(records(lines), input.toString(), dlq, store, progress);
        }
      }
    }
    System.err.printf("Backfill of %s: %,d records read, %,d rejected, %,d versions, table version %d (%s)%n",
        spec.name(), r.read(), r.rejected(), r.versions(), r.commit().version(), table);
    return 0;
  }

  /**
   * Counts the input's records for the progress line on a thread of its own: counting first would delay the
   * backfill by a full read of the file, on a single thread.
   */
  private void countInBackground(Progress progress) {
    Thread counter = new Thread(() -> {
      try {
        progress.total(InputFiles.countRecords(input));
      } catch (IOException | RuntimeException e) {
        // the progress line goes without a total; the backfill's own read reports a bad file
      }
    }, "backfill-count");
    counter.setDaemon(true);
    counter.start();
  }

  private static Iterator<Backfill.Input> records(InputFiles.LineReader lines) {
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
