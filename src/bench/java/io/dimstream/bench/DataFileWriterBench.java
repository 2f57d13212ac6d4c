package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.PlainCodecFactory;
import io.dimstream.table.internal.files.StatsCollector;
import io.dimstream.table.internal.files.TableLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * One data file of the customers example's versions written by the table's writer ({@code DataFiles.write}, straight
 * to Parquet's {@code RecordConsumer}) and by the parquet-avro writer it replaced ({@code TableLayout.toRecord} per
 * row), alternating in one JVM; the writing thread's CPU time per round (round 0 is the cold JVM a backfill is).
 * Args: {@code quick|full [work dir]}.
 */
public final class DataFileWriterBench {
  private DataFileWriterBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/writer"));
    int rows = quick ? 200_000 : 850_000;
    int rounds = quick ? 3 : 5;
    TableLayout layout = new TableLayout(DimensionSpecLoader.load(Path.of("examples/customers.yaml")));
    List<Version> versions = versions(rows, new Random(7));
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int round = 0; round < rounds; round++) {
      for (String writer : List.of("parquet-avro", "direct")) {
        String name = writer + "-" + round + ".parquet";
        long cpu = threads.getCurrentThreadCpuTime();
        if (writer.equals("direct")) {
          DataFiles.write(work, name, versions, layout, false, CompressionCodecName.ZSTD);
        } else {
          writeThroughAvro(work.resolve(name), versions, layout);
        }
        double ms = (threads.getCurrentThreadCpuTime() - cpu) / 1e6;
        emit("writer", "cpu", ms, "ms", params("writer", writer, "round", round, "rows", rows, "file_bytes",
            Files.size(work.resolve(name)), "codec", "zstd", "spec", "examples/customers.yaml"));
        Files.delete(work.resolve(name));
      }
    }
  }

  /** Seeded versions of the customers example: 9 per key, a third of them open. */
  private static List<Version> versions(int n, Random rnd) {
    String[] cities = {"Rome", "Paris", "Zürich", "東京"};
    List<Version> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long from = 1_700_000_000_000_000L + i;
      out.add(new Version(BusinessKey.of((long) (i / 9)), Sequence.of(from), i % 3 == 0 ? null : Sequence.of(from + 5),
          Arrays.asList("name-" + (i / 9), "user" + (i / 9) + "@example.com", cities[rnd.nextInt(cities.length)],
              rnd.nextBoolean() ? "gold" : "silver", Instant.ofEpochSecond(1_700_000_000L + i), "u")));
    }
    return out;
  }

  private static void writeThroughAvro(Path file, List<Version> versions, TableLayout layout) throws Exception {
    StatsCollector stats = new StatsCollector(layout.dataColumns);
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
        .withSchema(layout.avroSchema)
        .withConf(new PlainParquetConfiguration())
        .withDataModel(GenericData.get())
        .withCodecFactory(PlainCodecFactory.INSTANCE)
        .withCompressionCodec(CompressionCodecName.ZSTD)
        .withWriteMode(ParquetFileWriter.Mode.CREATE)
        .build()) {
      for (Version v : versions) {
        w.write(layout.toRecord(v, stats));
      }
    }
    stats.toJson();
  }
}
