package io.dimstream.spark;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaNewHadoopRDD;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.util.LongAccumulator;
import scala.Tuple2;

/**
 * {@code dimstream backfill} as a Spark job: decodes the input's records in parallel with dimstream's decoders,
 * shuffles them by table bucket with each key's events together in arrival order (input file by path, then place in
 * the file), folds each key once and writes each bucket's data files in the executors with dimstream's fold and table
 * writer, then commits every file in one commit from the driver. Rejected records are written to {@code --dlq} as
 * {@code backfill --dlq} writes them, in input order.
 *
 * <pre>{@code
 * spark-submit --class io.dimstream.spark.BackfillJob dimstream-spark.jar \
 *     --config customers.yaml --input s3a://archive/customers/ --table s3://lake/customers [--dlq rejected.jsonl]
 * }</pre>
 */
public final class BackfillJob {
  private final JavaSparkContext sc;
  private final JobArgs args;

  BackfillJob(JavaSparkContext sc, JobArgs args) {
    this.sc = sc;
    this.args = args;
  }

  public static void main(String[] argv) {
    JobArgs args;
    try {
      args = JobArgs.parse(argv);
    } catch (JobException e) {
      System.err.println("dimstream: " + e.getMessage());
      System.exit(2);
      return;
    }
    int code = 0;
    SparkConf conf = new SparkConf().setAppName("dimstream backfill")
        // the shuffle carries every event once: Kryo writes it in about half the bytes and time of Java serialization
        .setIfMissing("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .registerKryoClasses(new Class<?>[] {EventKey.class, Decoded.class, BucketResult.class, DeadLetterAt.class,
            byte[].class});
    try (JavaSparkContext sc = new JavaSparkContext(conf)) {
      Summary s = new BackfillJob(sc, args).run();
      System.err.printf("Spark backfill: %,d records read, %,d rejected, %,d versions, table version %d (%s)%n",
          s.records(), s.rejected(), s.versions(), s.tableVersion(), args.table());
    } catch (RuntimeException | IOException e) {
      System.err.println("dimstream: " + rootMessage(e));
      code = 1;
    }
    System.exit(code);
  }

  /** What the job did. */
  record Summary(long records, long rejected, long versions, long tableVersion) {}

  Summary run() throws IOException {
    Dimstream dimstream = Dimstream.local();
    LinkedHashMap<String, byte[]> specFiles = new LinkedHashMap<>(dimstream.<Map<String, byte[]>>call("specFiles",
        args.config()));
    List<String> files = InputListing.files(args.input(), sc.hadoopConfiguration());
    int buckets = dimstream.<Integer>call("createTable", specFiles, args.table());
    String loadId = UUID.randomUUID().toString();
    String table = args.table();
    String source = args.input();
    LongAccumulator records = sc.sc().longAccumulator("dimstream records");

    JavaPairRDD<EventKey, Decoded> decoded = JavaPairRDD.fromJavaRDD(decode(files, specFiles, buckets, records));
    List<BucketResult> results = decoded
        .repartitionAndSortWithinPartitions(new BucketPartitioner(buckets))
        .mapPartitionsWithIndex((bucket, events) -> List.of(
            writeBucket(bucket, events, specFiles, table, loadId, source)).iterator(), true)
        .collect();

    List<String> added = new ArrayList<>();
    List<DeadLetterAt> dead = new ArrayList<>();
    long versions = 0;
    long kept = 0;
    for (BucketResult r : results) {
      added.addAll(r.files);
      dead.addAll(r.deadLetters);
      versions += r.versions;
      kept += r.keptEvents;
    }
    dead.sort(DeadLetterAt.INPUT_ORDER);
    if (args.dlq() != null) {
      try {
        writeDeadLetters(dead);
      } catch (IOException | RuntimeException e) {
        // nothing is committed yet: the buckets' files go, as a failed backfill's do
        dimstream.call("abort", specFiles, table, added, loadId, buckets);
        throw e;
      }
    }
    Object[] committed = dimstream.call("commit", specFiles, table, added, versions, loadId, buckets, kept);
    return new Summary(records.value(), dead.size(), versions, (Long) committed[0]);
  }

  /** Every record of every file, decoded: JSON lines split by Spark across the files' blocks, CSV files whole. */
  private JavaRDD<Tuple2<EventKey, Decoded>> decode(List<String> files, LinkedHashMap<String, byte[]> specFiles,
      int buckets, LongAccumulator records) throws IOException {
    HashMap<String, Integer> index = new HashMap<>();
    List<Path> jsonLines = new ArrayList<>();
    List<Integer> csv = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      index.put(files.get(i), i);
      if (InputListing.isCsv(files.get(i))) {
        csv.add(i);
      } else {
        jsonLines.add(new Path(files.get(i)));
      }
    }
    String table = args.table();
    List<JavaRDD<Tuple2<EventKey, Decoded>>> parts = new ArrayList<>();
    if (!jsonLines.isEmpty()) {
      Job job = Job.getInstance(sc.hadoopConfiguration());
      FileInputFormat.setInputPaths(job, jsonLines.toArray(new Path[0]));
      JavaNewHadoopRDD<LongWritable, Text> lines = (JavaNewHadoopRDD<LongWritable, Text>) sc.newAPIHadoopRDD(
          job.getConfiguration(), TextInputFormat.class, LongWritable.class, Text.class);
      parts.add(lines.mapPartitionsWithInputSplit((split, it) -> {
        String file = ((FileSplit) split).getPath().toString();
        Integer f = index.get(file);
        if (f == null) {
          throw new IllegalStateException("Spark read " + file + ", which is not among the listed input files");
        }
        Dimstream dimstream = Dimstream.local();
        BiFunction<byte[], String, Object[]> decoder = dimstream.call("decoder", specFiles, table, true);
        return map(it, line -> {
          byte[] value = java.util.Arrays.copyOf(line._2().getBytes(), line._2().getLength());
          long offset = line._1().get();
          return decoded(dimstream, decoder, value, f, offset, file + ", byte " + offset, buckets, records);
        });
      }, false));
    }
    if (!csv.isEmpty()) {
      HashMap<String, String> conf = new HashMap<>();
      sc.hadoopConfiguration().forEach(e -> conf.put(e.getKey(), e.getValue()));
      parts.add(sc.parallelize(csv, csv.size()).flatMap(f -> {
        String file = files.get(f);
        List<Object[]> rows = readCsv(file, conf, specFiles);
        Dimstream dimstream = Dimstream.local();
        BiFunction<byte[], String, Object[]> decoder = dimstream.call("decoder", specFiles, table, false);
        return map(rows.iterator(), row -> decoded(dimstream, decoder, (byte[]) row[1], f, (Long) row[0],
            file + ", line " + row[0], buckets, records));
      }));
    }
    JavaRDD<Tuple2<EventKey, Decoded>> all = parts.get(0);
    for (int i = 1; i < parts.size(); i++) {
      all = all.union(parts.get(i));
    }
    return all.filter(t -> t != null);
  }

  /** A record decoded: an event keyed for the shuffle, a dead letter, or null for a record with no change. */
  private static Tuple2<EventKey, Decoded> decoded(Dimstream dimstream, BiFunction<byte[], String, Object[]> decoder,
      byte[] value, int file, long position, String where, int buckets, LongAccumulator records) {
    Object[] d = dimstream.inside(() -> decoder.apply(value, where));
    if (d == null) {
      return null;
    }
    records.add(1);
    if ("E".equals(d[0])) {
      return new Tuple2<>(new EventKey((Integer) d[1], (byte[]) d[2], file, position),
          Decoded.event((byte[]) d[3], value));
    }
    // a dead letter goes to any bucket's task, which passes it through
    int bucket = Math.floorMod(31 * file + Long.hashCode(position), buckets);
    return new Tuple2<>(new EventKey(bucket, null, file, position), Decoded.rejected((String) d[1]));
  }

  /** A CSV file of the input, copied to local disk and read by dimstream as {@code backfill} reads it. */
  private static List<Object[]> readCsv(String file, Map<String, String> conf, Map<String, byte[]> specFiles)
      throws IOException {
    Configuration hadoop = new Configuration(false);
    conf.forEach(hadoop::set);
    Path path = new Path(file);
    java.nio.file.Path local = Files.createTempFile("dimstream-input-", ".csv");
    try {
      try (var in = path.getFileSystem(hadoop).open(path)) {
        Files.copy(in, local, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
      return Dimstream.local().call("csvRecords", specFiles, local.toString());
    } finally {
      Files.deleteIfExists(local);
    }
  }

  /** Folds and writes one bucket in dimstream; the dead letters of the decoding come first in the partition. */
  private static BucketResult writeBucket(int bucket, Iterator<Tuple2<EventKey, Decoded>> events,
      Map<String, byte[]> specFiles, String table, String loadId, String source) {
    Dimstream dimstream = Dimstream.local();
    List<DeadLetterAt> dead = new ArrayList<>();
    Tuple2<EventKey, Decoded> first = null;
    while (events.hasNext()) {
      Tuple2<EventKey, Decoded> t = events.next();
      if (t._1().key != null) {
        first = t;
        break;
      }
      dead.add(new DeadLetterAt(t._1().file, t._1().position, t._2().deadLetter));
    }
    Tuple2<EventKey, Decoded> head = first;
    ClassLoader spark = Thread.currentThread().getContextClassLoader();
    Iterator<Object[]> rest = new Iterator<>() {
      Tuple2<EventKey, Decoded> pending = head;

      @Override
      public boolean hasNext() {
        return pending != null || withLoader(spark, events::hasNext);
      }

      @Override
      public Object[] next() {
        Tuple2<EventKey, Decoded> t = pending != null ? pending : withLoader(spark, events::next);
        pending = null;
        return new Object[] {t._1().key, t._2().event, t._2().record, t._1().file, t._1().position};
      }
    };
    Function<Object[], Object[]> writer = dimstream.call("bucketWriter", specFiles, table);
    Object[] out = dimstream.inside(() -> writer.apply(new Object[] {bucket, rest, loadId, source}));
    @SuppressWarnings("unchecked")
    List<String> files = new ArrayList<>((List<String>) out[0]);
    @SuppressWarnings("unchecked")
    List<Object[]> rejected = (List<Object[]>) out[3];
    for (Object[] r : rejected) {
      dead.add(new DeadLetterAt((Integer) r[0], (Long) r[1], (String) r[2]));
    }
    return new BucketResult(files, (Long) out[1], (Long) out[2], dead);
  }

  /** Reads Spark's shuffle with Spark's loader as the context loader, from inside a call into dimstream. */
  private static <T> T withLoader(ClassLoader loader, java.util.function.Supplier<T> read) {
    Thread t = Thread.currentThread();
    ClassLoader before = t.getContextClassLoader();
    t.setContextClassLoader(loader);
    try {
      return read.get();
    } finally {
      t.setContextClassLoader(before);
    }
  }

  private void writeDeadLetters(List<DeadLetterAt> dead) throws IOException {
    Path path = new Path(args.dlq());
    FileSystem fs = path.getFileSystem(sc.hadoopConfiguration());
    try (BufferedWriter out = new BufferedWriter(new OutputStreamWriter(fs.create(path, true),
        StandardCharsets.UTF_8))) {
      for (DeadLetterAt d : dead) {
        out.write(d.line);
        out.newLine();
      }
    }
  }

  private static <A, B> Iterator<B> map(Iterator<A> in, java.util.function.Function<A, B> f) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return in.hasNext();
      }

      @Override
      public B next() {
        return f.apply(in.next());
      }
    };
  }

  private static String rootMessage(Throwable e) {
    String message = e.getMessage();
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c.getMessage() != null) {
        message = c.getMessage();
      }
    }
    return message;
  }
}
