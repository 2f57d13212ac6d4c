package io.dimstream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.DimstreamException;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.Enriched;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.enrich.Fact;
import io.dimstream.enrich.FactDecoder;
import io.dimstream.enrich.TableHistory;
import io.dimstream.model.Version;
import io.dimstream.table.DeltaTable;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.TableLocation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dimstream enrich}: the point-in-time join of a file of facts with a dimension's table, offline. */
@Command(name = "enrich", mixinStandardHelpOptions = true,
    description = {"Joins a JSON-lines file of facts with the dimension's Delta table, each fact with the version "
        + "valid at its time, and writes one JSON line per fact (the columns of the enrichment's output topic, "
        + "revision 1): for backfilling fact tables. No Kafka needed.",
        "Of two facts with one fact key, the later line counts."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:every fact was written", "1:a fact line, the table or the output failed (nothing is "
        + "half-written to --output)", "2:bad spec or usage"})
final class EnrichCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--config", required = true, description = "The enrichment spec (YAML).")
  Path config;

  @Option(names = "--table", required = true, paramLabel = "TABLE", converter = TableLocationConverter.class,
      description = "The dimension's table: a local directory, s3://bucket/prefix or az://container/prefix.")
  TableLocation table;

  @Option(names = "--facts", required = true, description = "Facts, one JSON object per line (.jsonl).")
  Path facts;

  @Option(names = "--output", description = "Where to write the enriched facts; default: standard output.")
  Path output;

  @Override
  public Integer call() throws Exception {
    if (!Files.isRegularFile(config)) {
      throw new CliErrors.UsageError(config + ": no such file. Fix: pass the enrichment spec with --config, e.g. "
          + "--config examples/orders-enrich.yaml");
    }
    EnrichmentSpec spec = EnrichmentSpecLoader.load(config);
    if (!Files.isRegularFile(facts)) {
      throw new CliErrors.InputError(facts + ": no such file. Fix: pass a JSON-lines file of facts with --facts");
    }
    ObjectStore store = ObjectStores.open(table);
    if (!DeltaTable.exists(store)) {
      throw new CliErrors.InputError(table + ": no Delta table here (no _delta_log). Fix: pass the dimension's "
          + "table (its service.table_path) with --table");
    }
    List<Version> history = TableHistory.versions(DeltaTable.open(store), spec);
    Map<String, Enriched> joined = BatchEnrichment.join(spec, readFacts(spec, facts), history);
    EnrichedRows rows = new EnrichedRows(spec);
    if (output == null) {
      Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
      write(joined, rows, out);
      out.flush();
    } else {
      // written beside the target, then moved: a failure leaves no half-written output
      Path tmp = Files.createTempFile(output.toAbsolutePath().getParent(), ".enrich-", ".jsonl");
      try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        write(joined, rows, out);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(tmp);
        throw e;
      }
      Files.move(tmp, output, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    long matched = joined.values().stream().filter(Enriched::found).count();
    System.err.printf("Enriched %,d facts with %s as of their time: %,d found a version, %,d did not%n",
        joined.size(), spec.dimension().name(), matched, joined.size() - matched);
    return 0;
  }

  /** The facts of {@code file}; a line that is not a fact stops the command, naming the line and the reason. */
  static List<Fact> readFacts(EnrichmentSpec spec, Path file) throws IOException {
    FactDecoder decoder = new FactDecoder(spec);
    List<Fact> out = new ArrayList<>();
    try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      long n = 0;
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        n++;
        if (line.isBlank()) {
          continue;
        }
        JsonNode node;
        try {
          node = JSON.readTree(line);
        } catch (IOException e) {
          throw badLine(file, n, "malformed-json", "not JSON: " + e.getMessage());
        }
        FactDecoder.Result r = decoder.decode(node);
        if (r instanceof FactDecoder.Rejected rej) {
          throw badLine(file, n, rej.rejection().reason(), rej.rejection().detail());
        }
        out.add(((FactDecoder.Accepted) r).fact());
      }
    }
    return out;
  }

  private static void write(Map<String, Enriched> joined, EnrichedRows rows, Writer out) throws IOException {
    for (Enriched e : joined.values()) {
      out.write(JSON.writeValueAsString(rows.row(e)));
      out.write('\n');
    }
  }

  private static DimstreamException badLine(Path file, long line, String reason, String detail) {
    return new CliErrors.InputError(file + ", line " + line + ": not a fact (" + reason + "): " + detail
        + ". Nothing was written. Fix: correct or remove that line, then run the command again");
  }
}
