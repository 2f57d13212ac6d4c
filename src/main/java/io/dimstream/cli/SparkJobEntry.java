package io.dimstream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dimstream.batch.BucketBackfill;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.TableLocation;
import io.dimstream.table.CommitResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * What the Spark job ({@code spark/}, class {@code io.dimstream.spark.BackfillJob}) calls in dimstream. The job loads
 * dimstream in a class loader of its own, so that Spark's Jackson, Parquet, Hadoop and Scala never meet dimstream's:
 * every argument and result here is of a JDK type, and the handles are JDK functions.
 *
 * <p>A spec travels to the executors as its files ({@link #specFiles}): the spec and the Avro schema it names by a
 * relative path, keyed by their path relative to the spec's directory.
 */
public final class SparkJobEntry {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** One backfill per spec and table in a JVM: an executor's tasks share it. */
  private static final Map<List<Object>, BucketBackfill> LOADS = new ConcurrentHashMap<>();
  private static final Map<List<Object>, DimensionSpec> SPECS = new ConcurrentHashMap<>();

  private SparkJobEntry() {}

  /**
   * The files of the spec at {@code config}, checked as every command checks a spec: the spec's file name first,
   * then the Avro schema it names ({@code schema:}), if it names one by a relative path.
   *
   * @throws io.dimstream.DimstreamException when the spec is missing or does not check
   */
  public static Map<String, byte[]> specFiles(String config) throws IOException {
    Path file = Path.of(config).toAbsolutePath();
    Specs.load(file);
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put(file.getFileName().toString(), Files.readAllBytes(file));
    JsonNode root = YAML.readTree(file.toFile());
    if (root != null && root.hasNonNull("schema")) {
      String ref = root.get("schema").asText();
      Path rel = Path.of(ref);
      if (!rel.isAbsolute()) {
        if (rel.normalize().startsWith("..")) {
          throw new CliErrors.UsageError(file + " names its schema as " + ref + ", outside the spec's directory, which"
              + " the Spark job cannot ship to its executors. Fix: keep the schema in the spec's directory or below");
        }
        files.put(rel.normalize().toString(), Files.readAllBytes(file.getParent().resolve(rel)));
      }
    }
    return files;
  }

  /**
   * Creates the empty table at {@code table} (a local directory, s3://bucket/prefix or az://container/prefix), or
   * opens it when it exists without data, and returns its number of buckets.
   *
   * @throws io.dimstream.DimstreamException when the location holds a table with data or cannot be written
   */
  public static int createTable(Map<String, byte[]> specFiles, String table) {
    DimensionSpec spec = spec(specFiles);
    // an empty table (a job that failed before its commit) is loaded again; one with data is refused
    return BucketBackfill.create(spec, ObjectStores.open(TableLocation.parse(table), spec.service().storage()));
  }

  /**
   * A decoder of records: given a record (a line of JSON lines when {@code jsonLines}, converted to Avro first
   * when the spec's input format is Avro; a record as {@link #csvRecords} gave it otherwise) and where it is, it
   * returns null for a record that carries no change (a blank line), {@code {"E", bucket, key, event}} for an event
   * and {@code {"R", deadLetterLine}} for a rejected record.
   */
  public static BiFunction<byte[], String, Object[]> decoder(Map<String, byte[]> specFiles, String table,
      boolean jsonLines) {
    DimensionSpec spec = spec(specFiles);
    BucketBackfill load = load(specFiles, table);
    AvroLineEncoder avro = jsonLines && spec.inputFormat() == InputFormat.AVRO ? new AvroLineEncoder(spec) : null;
    return (record, where) -> {
      byte[] value = record;
      if (avro != null && !io.dimstream.batch.BlankLines.isBlank(record, 0, record.length)) {
        try {
          value = avro.encode(record);
        } catch (IllegalArgumentException e) {
          throw new CliErrors.InputError(where + ": cannot write the record as Avro with the spec's schema: "
              + e.getMessage() + ". Nothing was committed. Fix: correct or remove that line, then run the job again");
        }
      }
      BucketBackfill.Outcome o = load.decode(value, where);
      if (o instanceof BucketBackfill.Event e) {
        return new Object[] {"E", e.bucket(), e.key(), e.event()};
      }
      if (o instanceof BucketBackfill.Rejected r) {
        return new Object[] {"R", r.deadLetter()};
      }
      return null;
    };
  }

  /**
   * A writer of buckets: given {@code {bucket, events, loadId, source}}, where {@code events} is an iterator of
   * {@code {key, event, record, file, position}} (each key's together, in arrival order), it folds and writes the
   * bucket and returns {@code {files, versions, keptEvents, rejections}}: the {@code add} actions (a list of JSON
   * strings), two longs, and a list of {@code {file, position, deadLetterLine}}.
   */
  public static Function<Object[], Object[]> bucketWriter(Map<String, byte[]> specFiles, String table) {
    BucketBackfill load = load(specFiles, table);
    return args -> {
      @SuppressWarnings("unchecked")
      Iterator<Object[]> events = (Iterator<Object[]>) args[1];
      Iterator<BucketBackfill.Arrived> arrived = new Iterator<>() {
        @Override
        public boolean hasNext() {
          return events.hasNext();
        }

        @Override
        public BucketBackfill.Arrived next() {
          Object[] e = events.next();
          return new BucketBackfill.Arrived((byte[]) e[0], (byte[]) e[1], (byte[]) e[2], (Integer) e[3], (Long) e[4]);
        }
      };
      BucketBackfill.BucketWritten w = load.writeBucket((Integer) args[0], arrived, (String) args[2],
          (String) args[3]);
      List<Object[]> rejected = new ArrayList<>(w.rejected().size());
      w.rejected().forEach(r -> rejected.add(new Object[] {r.file(), r.position(), r.deadLetter()}));
      return new Object[] {new ArrayList<>(w.files()), w.versions(), w.keptEvents(), rejected};
    };
  }

  /** Commits every bucket's files as one commit; returns {@code {tableVersion, versions}}. */
  public static Object[] commit(Map<String, byte[]> specFiles, String table, List<String> files, long versions,
      String loadId, int buckets, long keptEvents) {
    CommitResult r = load(specFiles, table).commit(files, versions, loadId, buckets, keptEvents);
    return new Object[] {r.version(), versions};
  }

  /** Deletes the files and kept-event parts of a load given up before its commit. */
  public static void abort(Map<String, byte[]> specFiles, String table, List<String> files, String loadId,
      int buckets) {
    load(specFiles, table).abort(files, loadId, buckets);
  }

  /**
   * The records of the CSV file {@code localFile} (a header row, then one record per row, as {@code backfill} reads
   * it; converted to Avro when the spec's input format is Avro), as {@code {line, record}}.
   *
   * @throws io.dimstream.DimstreamException naming the file and line of a row that cannot be read or converted
   */
  public static List<Object[]> csvRecords(Map<String, byte[]> specFiles, String localFile) throws IOException {
    List<Object[]> out = new ArrayList<>();
    try (InputFiles.LineReader lines = InputFiles.forTopic(Path.of(localFile), spec(specFiles))) {
      while (lines.hasNext()) {
        InputFiles.Line line = lines.next();
        out.add(new Object[] {line.number(), line.value()});
      }
    }
    return out;
  }

  private static BucketBackfill load(Map<String, byte[]> specFiles, String table) {
    return LOADS.computeIfAbsent(List.of(filesKey(specFiles), table), k -> {
      DimensionSpec spec = spec(specFiles);
      return new BucketBackfill(spec, ObjectStores.open(TableLocation.parse(table), spec.service().storage()));
    });
  }

  /** The spec of {@code specFiles}, loaded from a copy of them in a directory of their own. */
  private static DimensionSpec spec(Map<String, byte[]> specFiles) {
    return SPECS.computeIfAbsent(List.of(filesKey(specFiles)), k -> {
      try {
        Path dir = Files.createTempDirectory("dimstream-spec");
        Path first = null;
        for (Map.Entry<String, byte[]> f : specFiles.entrySet()) {
          Path p = dir.resolve(f.getKey());
          Files.createDirectories(p.getParent());
          Files.write(p, f.getValue());
          first = first == null ? p : first;
          p.toFile().deleteOnExit();
        }
        return Specs.load(first);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** The files as a map key: names and contents (arrays compare by identity). */
  private static List<Object> filesKey(Map<String, byte[]> specFiles) {
    List<Object> key = new ArrayList<>();
    specFiles.forEach((name, bytes) -> {
      key.add(name);
      key.add(java.util.Base64.getEncoder().encodeToString(bytes));
    });
    return key;
  }
}
