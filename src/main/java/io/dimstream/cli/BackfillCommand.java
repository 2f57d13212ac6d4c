package io.dimstream.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.Decoded;
import io.dimstream.change.RejectReason;
import io.dimstream.config.DimensionSpec;
import io.dimstream.history.ApplyResult;
import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PRUNE_EVERY = 100_000;

  @Option(names = "--config", required = true, description = "The dimension spec (YAML).")
  Path config;

  @Option(names = "--input", required = true, description = "Change events: .jsonl or .csv, in arrival order.")
  Path input;

  @Option(names = "--table", required = true, description = "The Delta table to create (must not hold a table yet).")
  Path table;

  @Option(names = "--dlq", description = "Write rejected records here as JSON lines {reason, detail, record}.")
  Path dlq;

  @Override
  public Integer call() throws Exception {
    DimensionSpec spec = Specs.load(config);
    if (!Files.isRegularFile(input)) {
      throw CliErrors.missingInput(input);
    }
    if (Files.exists(table.resolve("_delta_log"))) {
      throw new CliErrors.UsageError(table + " already holds a table. Fix: backfill into a new directory, then "
          + "point the service at it (service.table_path) before its first run");
    }
    Result r = build(spec, input, dlq);
    System.err.printf("Writing %,d versions to %s ...%n", r.versions().size(), table);
    DeltaTable t = DeltaTable.openOrCreate(table, spec);
    List<VersionChange> upserts = new ArrayList<>(r.versions().size());
    r.versions().forEach(v -> upserts.add(new VersionChange.Upsert(v, io.dimstream.model.ChangeKind.OPEN)));
    CommitResult c = t.commit(upserts, Map.of(), "WRITE");
    System.err.printf("Backfill of %s: %,d records read, %,d rejected, %,d versions, table version %d (%s)%n",
        spec.name(), r.read(), r.rejected(), r.versions().size(), c.version(), table.toAbsolutePath());
    return 0;
  }

  /** What a backfill computed: the final versions and what it read and rejected. */
  record Result(List<Version> versions, long read, long rejected) {}

  /** Applies the file's records in order through the incremental engine and returns the final versions. */
  static Result build(DimensionSpec spec, Path input, Path dlqFile) throws Exception {
    ChangeDecoder decoder = ChangeDecoder.forSpec(spec);
    IncrementalHistory engine = new IncrementalHistory(spec);
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    VersionsById rows = new VersionsById();
    long read = 0;
    long rejected = 0;
    BufferedWriter dlq = dlqFile == null ? null : Files.newBufferedWriter(dlqFile, StandardCharsets.UTF_8);
    try (InputFiles.LineReader lines = InputFiles.forTopic(input, spec);
        Progress progress = Progress.onStderr("records", InputFiles.countRecords(input))) {
      while (lines.hasNext()) {
        InputFiles.Line line = lines.next();
        read++;
        progress.step(1);
        if (read % PRUNE_EVERY == 0) {
          store.prune(engine); // as the topology's punctuator does: memory follows the horizon, not the archive
        }
        Decoded d = decoder.decode(null, line.value(), -1);
        String reason;
        String detail;
        if (d instanceof Decoded.Accepted a) {
          ApplyResult result = engine.apply(store, a.event());
          if (result instanceof ApplyResult.Applied applied) {
            rows.apply(applied.changes());
            continue;
          }
          ApplyResult.TooLate late = (ApplyResult.TooLate) result;
          reason = RejectReason.BEYOND_LATENESS_HORIZON;
          detail = "the event is older than the key's newest sequence minus the lateness horizon ("
              + late.horizon() + ")";
        } else {
          Decoded.Rejected rej = (Decoded.Rejected) d;
          reason = rej.reason();
          detail = rej.detail();
        }
        rejected++;
        if (dlq != null) {
          ObjectNode o = JSON.createObjectNode();
          o.put("reason", reason);
          o.put("detail", detail);
          o.put("record", new String(line.value(), StandardCharsets.UTF_8));
          dlq.write(JSON.writeValueAsString(o));
          dlq.newLine();
        }
      }
    } finally {
      if (dlq != null) {
        dlq.close();
      }
    }
    return new Result(rows.sorted(), read, rejected);
  }
}
