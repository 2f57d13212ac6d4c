package io.dimstream.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.config.DimensionSpec;
import io.dimstream.config.DimensionSpecLoader;
import io.dimstream.service.Backfill;
import io.dimstream.testkit.ChangeStreams;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.NoSuchElementException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Backfill wall time against its floor in the same run. Modes: {@code generate <events> <keys> <file>} writes the
 * seeded stream (5% late, 2% duplicate, 1% delete, 5% no-change); {@code floor <file> <rows> <dir>} Jackson-parses
 * every line and writes {@code rows} rows to one plain Parquet file; {@code backfill <file> <dir>} runs the
 * backfill pipeline into a new table. Each prints JSON lines {@code {"bench","metric","value","unit","params"}}.
 */
public final class BackfillFloorBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SPEC = Path.of("examples/customers.yaml");

  public static void main(String[] args) throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(SPEC);
    switch (args[0]) {
      case "generate" -> {
        int events = Integer.parseInt(args[1]);
        int keys = Integer.parseInt(args[2]);
        long t = System.nanoTime();
        ChangeStreams.random(spec, 42L).keys(keys).events(events).late(0.05).duplicates(0.02).deletes(0.01)
            .noChange(0.05).generate().writeJsonLines(Path.of(args[3]));
        print("generate", "wall", secs(t), "s", "{\"events\":" + events + ",\"keys\":" + keys + "}");
      }
      case "floor" -> floor(Path.of(args[1]), Long.parseLong(args[2]), Path.of(args[3]));
      case "backfill" -> backfill(spec, Path.of(args[1]), Path.of(args[2]));
      default -> throw new IllegalArgumentException("mode: generate | floor | backfill, not " + args[0]);
    }
  }

  private static void backfill(DimensionSpec spec, Path input, Path dir) throws Exception {
    long t = System.nanoTime();
    Backfill backfill = new Backfill(spec);
    Backfill.Loaded r;
    try (BufferedReader in = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
      r = backfill.load(lines(in), input.toString(), null, dir.resolve("table"));
    }
    String params = "{\"events\":" + r.read() + ",\"versions\":" + r.versions() + ",\"threads\":"
        + Runtime.getRuntime().availableProcessors() + ",\"maxHeapMiB\":" + Runtime.getRuntime().maxMemory() / (1 << 20)
        + "}";
    print("backfill", "wall", secs(t), "s", params);
    print("backfill", "events_per_s", r.read() / secs(t), "events/s", params);
    if (r.commit().rowsWritten() != r.versions()) {
      throw new IllegalStateException("the table got " + r.commit().rowsWritten() + " rows, not " + r.versions());
    }
  }

  /** The floor: parse every line with Jackson, then write as many rows as the backfill writes to one file. */
  private static void floor(Path input, long rows, Path dir) throws Exception {
    long t = System.nanoTime();
    long parsed = 0;
    long checksum = 0;
    try (BufferedReader in = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        JsonNode n = JSON.readTree(line);
        checksum += n.size();
        parsed++;
      }
    }
    double parse = secs(t);
    long w = System.nanoTime();
    Schema schema = SchemaBuilder.record("row").fields().requiredLong("customer_id").optionalString("name")
        .optionalString("email").optionalString("city").optionalString("tier").requiredLong("valid_from")
        .optionalLong("valid_to").requiredBoolean("is_current").endRecord();
    Files.createDirectories(dir);
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    try (ParquetWriter<GenericRecord> out = AvroParquetWriter.<GenericRecord>builder(
            new LocalOutputFile(dir.resolve("floor.parquet")))
        .withSchema(schema).withConf(conf).withDataModel(GenericData.get())
        .withCompressionCodec(CompressionCodecName.UNCOMPRESSED).withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        .build()) {
      for (long i = 0; i < rows; i++) {
        GenericRecord r = new GenericData.Record(schema);
        r.put("customer_id", i % 100_000);
        r.put("name", "name-" + (i % 977));
        r.put("email", "user" + i + "@example.com");
        r.put("city", "city-" + (i % 53));
        r.put("tier", (i & 1) == 0 ? "gold" : "silver");
        r.put("valid_from", 1_767_225_600_000_000L + i);
        r.put("valid_to", (i & 3) == 0 ? null : 1_767_225_600_000_001L + i);
        r.put("is_current", (i & 3) == 0);
        out.write(r);
      }
    }
    String params = "{\"events\":" + parsed + ",\"rows\":" + rows + ",\"fields\":" + checksum + "}";
    print("backfill_floor", "parse", parse, "s", params);
    print("backfill_floor", "write", secs(w), "s", params);
    print("backfill_floor", "wall", secs(t), "s", params);
  }

  private static Iterator<Backfill.Input> lines(BufferedReader in) {
    return new Iterator<>() {
      private String next = read();
      private long line;

      private String read() {
        try {
          return in.readLine();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public Backfill.Input next() {
        if (next == null) {
          throw new NoSuchElementException();
        }
        Backfill.Input in = new Backfill.Input(++line, next.getBytes(StandardCharsets.UTF_8));
        next = read();
        return in;
      }
    };
  }

  private static double secs(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static void print(String bench, String metric, double value, String unit, String params) {
    System.out.println(String.format(Locale.ROOT,
        "{\"bench\":\"%s\",\"metric\":\"%s\",\"value\":%.3f,\"unit\":\"%s\",\"params\":%s}",
        bench, metric, value, unit, params));
  }

  private BackfillFloorBench() {}
}
