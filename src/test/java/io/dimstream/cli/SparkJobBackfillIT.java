package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.batch.KeptEvents;
import io.dimstream.history.Scd2Fold;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.KafkaClients;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream spark-backfill} on Spark's {@code local[2]} (a real SparkSubmit, in a JVM of its own, from the
 * Maven artifacts): over a directory of files with late, duplicate, no-change, delete and bad records, it writes the
 * table {@code backfill} writes from the same records in one file, with the same dead letters; {@code run} then
 * continues that table exactly.
 */
class SparkJobBackfillIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Spark on the loopback interface only, without its web UI. */
  static final List<String> LOCAL_SPARK = List.of("--conf", "spark.driver.host=127.0.0.1", "--conf",
      "spark.driver.bindAddress=127.0.0.1", "--conf", "spark.ui.enabled=false");

  @TempDir
  Path dir;

  @Test
  void shouldWriteTheTableAndDeadLettersOfBackfill() throws Exception {
    Path yaml = ExampleSpec.write(dir, "customers_spark_job", "customers_spark_job", dir.resolve("data"), "", "");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream stream = EndToEndIT.stream(spec);
    List<String> lines = Files.readAllLines(EndToEndIT.writeInput(stream, dir.resolve("generated.jsonl")));
    lines.add(tooLate(lines.get(lines.size() - 1)));
    lines.add(lines.size() / 3, "   ");
    Path all = Files.write(dir.resolve("all.jsonl"), lines, StandardCharsets.UTF_8);
    Path input = writeParts(lines, dir.resolve("input"), 3);
    Files.writeString(input.resolve("_SUCCESS"), "not an input file");

    Path sparkTable = dir.resolve("spark-table");
    Path sparkDlq = dir.resolve("spark-dlq.jsonl");
    assertThat(sparkBackfill(yaml, input.toString(), sparkTable, sparkDlq, "local[2]")).as("spark-backfill exit code")
        .isZero();
    Path table = dir.resolve("table");
    Path dlq = dir.resolve("dlq.jsonl");
    assertThat(TakeoverIT.cli("backfill", "--config", yaml.toString(), "--input", all.toString(), "--table",
        table.toString(), "--dlq", dlq.toString())).as("backfill exit code").isZero();

    assertThat(EndToEndIT.sorted(KernelReader.latest(sparkTable, spec))).as("the Spark job's table, read by Delta Kernel")
        .containsExactlyElementsOf(EndToEndIT.sorted(KernelReader.latest(table, spec)))
        .containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
    assertThat(Files.readAllLines(sparkDlq)).as("the Spark job's dead letters")
        .containsExactlyElementsOf(Files.readAllLines(dlq))
        .hasSize(3);
    assertThat(Files.readString(sparkDlq)).contains("\"beyond-lateness-horizon\"", "\"malformed-json\"",
        "\"missing-key\"");
    assertThat(tableShape(sparkTable)).as("protocol, schema, properties and files of the Spark job's table")
        .isEqualTo(tableShape(table));
    assertThat(keptEvents(sparkTable)).as("events kept beside the table for `run`").isEqualTo(keptEvents(table))
        .isPositive();
  }

  @Test
  void shouldBeContinuedByRunExactly() throws Exception {
    Path yaml = ExampleSpec.write(dir, "customers_spark_takeover", "customers_spark_takeover", dir.resolve("data"), "",
        "");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream stream = EndToEndIT.stream(spec);
    List<Path> halves = TakeoverIT.halves(stream, dir);
    Path input = writeParts(Files.readAllLines(halves.get(0)), dir.resolve("input"), 2);
    Path table = dir.resolve("table");

    assertThat(sparkBackfill(yaml, input.toString(), table, null, "local[2]")).isZero();
    Path log = TakeoverIT.log("spark-backfill");
    try (ServiceProcess service = ServiceProcess.start(log, "--config", yaml.toString())) {
      TakeoverIT.awaitStarted(service, spec, log);
      ProduceCommand.produce(spec, halves.get(1), KafkaClients.properties(spec, null));
      TakeoverIT.awaitCaughtUp(service, spec, log, () -> DeltaTable.open(table));
      assertThat(service.stop()).isZero();
    }
    // the job kept the events its rows do not show: every key is exact, none at risk
    TakeoverIT.assertTableIsTheFoldOf(spec, stream.events(), 0, table, DeltaTable.open(table));
    assertThat(Files.readString(log)).containsPattern("Took over [0-9]+ events the backfill kept");
  }

  @Test
  void shouldReadCsvFilesAsBackfillReadsOne() throws Exception {
    Path yaml = ExampleSpec.write(dir, "customers_spark_csv", "customers_spark_csv", dir.resolve("data"), "", "");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    List<String> rows = csvRows(Files.readAllLines(Path.of("examples/customers-changes.jsonl")));
    String header = rows.get(0);
    int half = rows.size() / 2;
    Path input = Files.createDirectories(dir.resolve("input"));
    Files.write(input.resolve("a.csv"), rows.subList(0, half), StandardCharsets.UTF_8);
    List<String> second = new ArrayList<>(List.of(header));
    second.addAll(rows.subList(half, rows.size()));
    Files.write(input.resolve("b.csv"), second, StandardCharsets.UTF_8);
    Path all = Files.write(dir.resolve("all.csv"), rows, StandardCharsets.UTF_8);

    Path sparkTable = dir.resolve("spark-table");
    Path sparkDlq = dir.resolve("spark-dlq.jsonl");
    assertThat(sparkBackfill(yaml, input + "/*.csv", sparkTable, sparkDlq, "local[2]")).isZero();
    Path table = dir.resolve("table");
    Path dlq = dir.resolve("dlq.jsonl");
    assertThat(TakeoverIT.cli("backfill", "--config", yaml.toString(), "--input", all.toString(), "--table",
        table.toString(), "--dlq", dlq.toString())).isZero();

    List<io.dimstream.model.Version> expected = EndToEndIT.sorted(KernelReader.latest(table, spec));
    assertThat(expected).as("versions backfill wrote from the CSV file").isNotEmpty();
    assertThat(EndToEndIT.sorted(KernelReader.latest(sparkTable, spec))).containsExactlyElementsOf(expected);
    assertThat(Files.readAllLines(sparkDlq)).containsExactlyElementsOf(Files.readAllLines(dlq));
  }

  /** JSON lines as CSV rows with a header of the example's columns; a missing or null value is an empty cell. */
  private static List<String> csvRows(List<String> jsonLines) throws Exception {
    List<String> columns = List.of("customer_id", "name", "email", "city", "tier", "updated_at", "op");
    List<String> rows = new ArrayList<>(List.of(String.join(",", columns)));
    for (String line : jsonLines) {
      JsonNode record;
      try {
        record = JSON.readTree(line);
      } catch (java.io.IOException e) {
        continue; // the example's deliberately broken line has no CSV form
      }
      List<String> cells = new ArrayList<>();
      for (String c : columns) {
        JsonNode v = record.get(c);
        cells.add(v == null || v.isNull() ? "" : "\"" + v.asText().replace("\"", "\"\"") + "\"");
      }
      rows.add(String.join(",", cells));
    }
    return rows;
  }

  @Test
  void shouldSayWhatIsWrongWithAMissingInputAndATableThatHoldsData() throws Exception {
    Path yaml = ExampleSpec.write(dir, "customers_spark_errors", "customers_spark_errors", dir.resolve("data"), "",
        "");
    Path table = dir.resolve("table");
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream before = System.err;
    int missing;
    int full;
    try {
      System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
      missing = sparkBackfill(yaml, dir.resolve("no-such-dir").toString(), table, null, "local[1]");
      assertThat(TakeoverIT.cli("backfill", "--config", yaml.toString(), "--input",
          "examples/customers-changes.jsonl", "--table", table.toString())).isZero();
      full = sparkBackfill(yaml, "examples/customers-changes.jsonl", table, null, "local[1]");
    } finally {
      System.setErr(before);
    }
    String printed = err.toString(StandardCharsets.UTF_8);
    assertThat(missing).as("exit code of a missing input; it printed%n%s", printed).isEqualTo(1);
    assertThat(printed).contains(dir.resolve("no-such-dir") + ": no such file, directory or files matching the glob",
        "Fix: pass a file of change events");
    assertThat(full).as("exit code of a table with data; it printed%n%s", printed).isEqualTo(1);
    assertThat(printed).contains("cannot bulk-load into version 1: the table already holds",
        "Fix: load into a new, empty table");
  }

  /** Runs {@code dimstream spark-backfill} with Spark on the loopback interface; its exit code. */
  static int sparkBackfill(Path yaml, String input, Path table, Path dlq, String master, String... more) {
    List<String> args = new ArrayList<>(List.of("spark-backfill", "--master", master, "--config", yaml.toString(),
        "--input", input, "--table", table.toString()));
    if (dlq != null) {
      args.addAll(List.of("--dlq", dlq.toString()));
    }
    args.addAll(LOCAL_SPARK);
    args.addAll(List.of(more));
    return Main.commandLine().execute(args.toArray(String[]::new));
  }

  /** {@code lines} cut into {@code n} files in arrival order, named so that path order is arrival order. */
  static Path writeParts(List<String> lines, Path directory, int n) throws Exception {
    Files.createDirectories(directory);
    int from = 0;
    for (int i = 0; i < n; i++) {
      int to = i == n - 1 ? lines.size() : from + lines.size() / n;
      Files.write(directory.resolve("changes-" + i + ".jsonl"), lines.subList(from, to), StandardCharsets.UTF_8);
      from = to;
    }
    return directory;
  }

  /** The record of {@code line} sixty days before its time: beyond the 30-day lateness horizon of its key. */
  private static String tooLate(String line) throws Exception {
    ObjectNode record = (ObjectNode) JSON.readTree(line);
    JsonNode at = record.get("updated_at");
    Instant t = at.isNumber() ? Instant.ofEpochMilli(at.asLong()) : Instant.parse(at.asText());
    record.put("updated_at", t.minus(60, ChronoUnit.DAYS).toString());
    return JSON.writeValueAsString(record);
  }

  /**
   * What the two commits of a new table say of it, but for ids, times and file names: the protocol, the schema,
   * the properties, the partitioning, and how many files of each directory and rows the load added.
   */
  static Map<String, Object> tableShape(Path table) throws Exception {
    Map<String, Object> shape = new TreeMap<>();
    for (String commit : List.of("00000000000000000000.json", "00000000000000000001.json")) {
      for (String line : Files.readAllLines(table.resolve("_delta_log").resolve(commit))) {
        JsonNode action = JSON.readTree(line);
        if (action.has("protocol")) {
          shape.put("protocol", action.get("protocol"));
        } else if (action.has("metaData")) {
          JsonNode m = action.get("metaData");
          shape.put("schema", m.get("schemaString").asText());
          shape.put("properties", m.get("configuration"));
          shape.put("partitionColumns", m.get("partitionColumns"));
        } else if (action.has("add")) {
          String path = action.get("add").get("path").asText();
          String directory = path.contains("/") ? path.substring(0, path.lastIndexOf('/')) : "";
          shape.merge("files in " + directory, 1, (a, b) -> (Integer) a + (Integer) b);
          long rows = JSON.readTree(action.get("add").get("stats").asText()).get("numRecords").asLong();
          shape.merge("rows in " + directory, rows, (a, b) -> (Long) a + (Long) b);
        } else if (action.has("commitInfo")) {
          shape.put("operation " + commit, action.get("commitInfo").get("operation").asText());
        }
      }
    }
    return shape;
  }

  private static long keptEvents(Path table) throws Exception {
    return JSON.readTree(table.resolve(KeptEvents.DIR).resolve("manifest.json").toFile()).get("events").asLong();
  }
}
