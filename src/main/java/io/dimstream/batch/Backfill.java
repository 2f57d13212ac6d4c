package io.dimstream.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.change.ChangeDecoder;
import io.dimstream.codec.StateBinary;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.BulkLoad;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import io.dimstream.topology.Scd2Step;
import io.dimstream.topology.UnknownFieldWarnings;
import io.dimstream.table.Operation;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backfill's pipeline, without Kafka: records are decoded in parallel by the topology's own rules
 * ({@link Scd2Step}), each key's events are grouped in arrival order and folded once with the engine's fold step
 * (the lateness horizon judged in arrival order, as the engine judges it), then one {@code WRITE} commit of a new
 * table. The table equals the one the streaming path builds from the same records arriving in that order, and the
 * records it rejects are the ones the dead-letter topic would get, with the same reasons and details.
 */
public final class Backfill {
  private static final Logger LOG = LoggerFactory.getLogger(Backfill.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Groups of keys folded (and written) as units of parallel work; more groups than threads balance the load. */
  static final int SHARDS = 64;

  private final DimensionSpec spec;
  private final KeyRunFold keyRunFold;
  /** Where the load into a table keeps the events its rows do not show; null outside such a load. */
  private volatile KeptEvents.Writer kept;

  public Backfill(DimensionSpec spec) {
    this.spec = spec;
    this.keyRunFold = new KeyRunFold(spec);
  }

  /** One change record of the input, as the changes topic would carry its value; {@code line} is 1-based. */
  public record Input(long line, byte[] value) {}

  /** What a backfill computed: the final versions, ordered by key then {@code valid_from}, and the counts. */
  public record Result(List<Version> versions, long read, long rejected) {
    public Result {
      versions = List.copyOf(versions);
    }
  }

  /**
   * Applies {@code records} in order and returns the final versions.
   *
   * @param source  names the input in log lines (e.g. the file)
   * @param dlqFile where each rejected record is written as a JSON line {@code {reason, detail, record}} (record as
   *                UTF-8 text); null to count them only. Created or truncated
   * @throws IOException when the dead-letter file cannot be written
   */
  public Result build(Iterator<Input> records, String source, Path dlqFile) throws IOException {
    List<Version> versions = new ArrayList<>();
    Counts counts = run(records, source, dlqFile, SHARDS, Backfill::shardOf,
        (shard, rows) -> {
          synchronized (versions) {
            versions.addAll(rows);
          }
        }, defaultBudget());
    versions.sort(BusinessKeys.VERSION_ORDER);
    return new Result(versions, counts.read(), counts.rejected());
  }

  /** What a backfill into a table did: records read and rejected, versions written, and the commit. */
  public record Loaded(long read, long rejected, long versions, CommitResult commit) {}

  /**
   * Applies {@code records} and writes the resulting versions into the new table at {@code tablePath} (created, or
   * opened if it exists empty and fits the spec) as one {@code WRITE} commit: each key's events are folded once and
   * the table's buckets are written in parallel, so nothing holds every version at once.
   *
   * @param dlqFile as for {@link #build}
   * @throws IOException when the dead-letter file cannot be written
   * @throws io.dimstream.table.TableException when the table holds data already or cannot be written
   */
  public Loaded load(Iterator<Input> records, String source, Path dlqFile, Path tablePath) throws IOException {
    return load(records, source, dlqFile, tablePath, (n, bytes) -> { });
  }

  /** As {@link #load(Iterator, String, Path, Path)}, telling {@code progress} of the fold and write phase. */
  public Loaded load(Iterator<Input> records, String source, Path dlqFile, Path tablePath, ProgressListener progress)
      throws IOException {
    return load(records, source, dlqFile, new LocalStore(tablePath), progress);
  }

  /** As {@link #load(Iterator, String, Path, Path, ProgressListener)} into the table in {@code table}. */
  public Loaded load(Iterator<Input> records, String source, Path dlqFile, ObjectStore table,
      ProgressListener progress) throws IOException {
    BulkLoad bulk = DeltaTable.openOrCreate(table, spec).bulkLoad();
    AtomicLong versions = new AtomicLong();
    kept = new KeptEvents.Writer(table, spec);
    try {
      Counts counts = run(ParallelDecode.batches(records), source, dlqFile, bulk.buckets(), bulk::bucketOf,
          (bucket, rows) -> {
            bulk.write(bucket, rows);
            versions.addAndGet(rows.size());
          }, defaultBudget(), () -> -1, progress, null);
      return committed(new Loaded(counts.read(), counts.rejected(), versions.get(), bulk.commit(Operation.WRITE)));
    } catch (IOException | RuntimeException e) {
      bulk.abort();
      kept.abort();
      throw e;
    } finally {
      kept = null;
    }
  }

  /**
   * As {@link #load}, reading a file of JSON lines ({@code .jsonl}: one record per non-blank line, lines ended by
   * {@code \n}, {@code \r} or {@code \r\n}) in blocks of whole lines: the lines are split on the decoding threads,
   * so that no single thread handles every line.
   *
   * @param progress told, on the calling thread and in input order, how many records each decoded block held and
   *                 how many bytes of the file had been read by then (the file's size once the last block is told);
   *                 then of the fold and write phase
   * @throws java.io.UncheckedIOException when the file cannot be read
   */
  public Loaded loadJsonLines(Path file, Path dlqFile, Path tablePath, ProgressListener progress) throws IOException {
    return loadJsonLines(file, dlqFile, new LocalStore(tablePath), progress);
  }

  /** As {@link #loadJsonLines(Path, Path, Path, ProgressListener)} into the table in {@code table}. */
  public Loaded loadJsonLines(Path file, Path dlqFile, ObjectStore table, ProgressListener progress)
      throws IOException {
    BulkLoad bulk = DeltaTable.openOrCreate(table, spec).bulkLoad();
    AtomicLong versions = new AtomicLong();
    kept = new KeptEvents.Writer(table, spec);
    try (LineBlocks blocks = new LineBlocks(file)) {
      Counts counts = run(blocks, file.toString(), dlqFile, bulk.buckets(), bulk::bucketOf, (bucket, rows) -> {
        bulk.write(bucket, rows);
        versions.addAndGet(rows.size());
      }, defaultBudget(), blocks::bytesRead, progress, lines -> LineBlocks.recordsAt(file, lines));
      return committed(new Loaded(counts.read(), counts.rejected(), versions.get(), bulk.commit(Operation.WRITE)));
    } catch (IOException | RuntimeException e) {
      bulk.abort();
      kept.abort();
      throw e;
    } finally {
      kept = null;
    }
  }

  /**
   * Writes the manifest of the events kept beside the table, once its commit landed: a failed backfill's parts are
   * never named, so never read. Failing here leaves the table as committed: a takeover then has its rows alone.
   */
  private Loaded committed(Loaded loaded) {
    try {
      kept.finish(loaded.commit().version());
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not keep the events the rows do not show beside the table ({}): `run` will take the table over"
          + " from its rows alone", e.toString());
      kept.abort();
    }
    return loaded;
  }

  /**
   * Told of a backfill's progress: through its input (no second read of a file is needed for a total), then through
   * its second phase, in which the keys' events are folded and the versions written, a group of keys at a time.
   */
  @FunctionalInterface
  public interface ProgressListener {
    /**
     * {@code records} more records were decoded; {@code bytesRead} bytes of the file have been read so far (-1 when
     * the input is no file). Called on the backfill's calling thread, in input order.
     */
    void read(long records, long bytesRead);

    /** Every record is read; {@code groups} groups of keys are folded and written next. */
    default void folding(int groups) {}

    /** One more group of keys was folded and its {@code versions} versions written; from the backfill's threads. */
    default void folded(long versions) {}
  }

  /**
   * A shard from the top bits of the scrambled hash: each shard's map then still sees keys spread over every low
   * bit (taking the hash modulo the shard count would leave every key of a shard in a few of its map's buckets).
   */
  private static int shardOf(BusinessKey key) {
    long h = SpillingArrivals.groupKey(key).hashCode() * 0x9E3779B97F4A7C15L;
    return (int) (h >>> (64 - Integer.numberOfTrailingZeros(SHARDS)));
  }

  /** How many records a run read and rejected. */
  record Counts(long read, long rejected) {}

  /** Receives the versions of one shard, from one of the pool's threads. */
  interface ShardSink {
    void accept(int shard, List<Version> versions);
  }

  /**
   * The pipeline: decode in parallel (the decoding threads also encode each chunk, so this thread only reads the
   * records and appends bytes), then per partition in parallel: group each shard's events by key (in arrival
   * order), fold each key once, hand the shard's versions to {@code sink}; write the dead letters in input order.
   *
   * @param budget bytes of encoded events held in memory before partitions spill to disk
   */
  Counts run(Iterator<Input> records, String source, Path dlqFile, int shards, ToIntFunction<BusinessKey> shardOf,
      ShardSink sink, long budget) throws IOException {
    return run(ParallelDecode.batches(records), source, dlqFile, shards, shardOf, sink, budget, () -> -1,
        (n, bytes) -> { }, null);
  }

  /**
   * Reads the records at some lines of the input again: how a backfill of a file gets back the few records its fold
   * rejects, instead of holding every record beside its event until the fold.
   */
  @FunctionalInterface
  interface RecordsAgain {
    /** The records at {@code lines}, by line. */
    Map<Long, byte[]> at(Set<Long> lines) throws IOException;
  }

  /**
   * As {@link #run(Iterator, String, Path, int, ToIntFunction, ShardSink, long)}, over batches of records.
   *
   * @param bytesRead    bytes of the input file read so far, for {@code progress}; -1 when the input is no file
   * @param recordsAgain null to hold each event's record until the fold
   */
  Counts run(Iterator<? extends ParallelDecode.Batch> batches, String source, Path dlqFile, int shards,
      ToIntFunction<BusinessKey> shardOf, ShardSink sink, long budget, LongSupplier bytesRead,
      ProgressListener progress, RecordsAgain recordsAgain) throws IOException {
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "backfill-" + spec.name());
      t.setDaemon(true);
      return t;
    });
    try {
      // A failing engine sends the record to the DLQ, as in the topology; nothing here is a Kafka failure.
      Scd2Step step = new Scd2Step(spec, ChangeDecoder.forFiles(spec), e -> false);
      ParallelDecode decode = new ParallelDecode(step, new UnknownFieldWarnings(spec.name(), spec.source()), pool,
          threads);
      List<DeadLetter> dead = new ArrayList<>();
      long read;
      StateBinary binary = new StateBinary(spec);
      try (SpillingArrivals arrivals = new SpillingArrivals(shards, budget, binary, recordsAgain == null)) {
        // The decoding threads encode their chunks: this thread only appends bytes.
        read = decode.run(batches, source, shardOf, chunk -> chunk.arrivals().isEmpty() ? chunk
            : new ParallelDecode.Chunk(chunk.records(), List.of(), null, chunk.rejected(),
                arrivals.encode(chunk.arrivals(), chunk.shards())), chunk -> {
              progress.read(chunk.records(), bytesRead.getAsLong());
              dead.addAll(chunk.rejected());
              if (chunk.encoded() != null) {
                arrivals.add(chunk.encoded());
              }
            });
        if (arrivals.spilled()) {
          LOG.info("{}: {} events did not fit the backfill's budget of {} bytes in memory; {} of {} partitions "
              + "went to disk", source, arrivals.spilledEvents(), budget, arrivals.spilledPartitions(),
              arrivals.partitions());
        }
        arrivals.finishWriting();
        progress.folding(arrivals.partitions());
        // resident partitions first: folding them frees memory before spilled ones are read back
        List<Callable<List<DeadLetter>>> tasks = new ArrayList<>(arrivals.partitions());
        for (int p = 0; p < arrivals.partitions(); p++) {
          int partition = p;
          tasks.add(() -> {
            List<Map<ByteBuffer, List<SpillingArrivals.Spilled>>> groups = arrivals.read(partition);
            List<DeadLetter> late = new ArrayList<>();
            long folded = 0;
            for (int shard = partition; shard < shards; shard += arrivals.partitions()) {
              Map<ByteBuffer, List<SpillingArrivals.Spilled>> keys = groups.get(shard);
              groups.set(shard, null); // folded shards free their events while later ones run
              if (!keys.isEmpty()) {
                folded += fold(shard, binary, keys, source, sink, late);
              }
            }
            progress.folded(folded);
            // a dead letter of the fold (too late, or rejected on the engine's path) needs its record back
            for (int i = 0; i < late.size(); i++) {
              DeadLetter d = late.get(i);
              if (d.value() == null && d.valueAt() >= 0) {
                late.set(i, d.withValue(arrivals.value(partition, d.valueAt())));
              }
            }
            arrivals.release(partition);
            return late;
          });
        }
        dead.addAll(invokeAll(pool, tasks));
        if (arrivals.spilled()) {
          LOG.info("{}: spilled {} bytes", source, arrivals.spilledBytes());
        }
      }
      dead.sort(Comparator.comparingLong(DeadLetter::line));
      if (dlqFile != null && recordsAgain != null) {
        withRecordsReadAgain(dead, recordsAgain);
      }
      if (dlqFile != null) {
        try (BufferedWriter dlq = Files.newBufferedWriter(dlqFile, StandardCharsets.UTF_8)) {
          for (DeadLetter d : dead) {
            writeDeadLetter(dlq, d.reason(), d.detail(), d.value());
          }
        }
      }
      return new Counts(read, dead.size());
    } catch (InterruptedException e) {
      throw BackfillTasks.interrupted(e);
    } catch (ExecutionException e) {
      throw BackfillTasks.failed(e);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Folds one shard's events (each key's, in arrival order; keys in order, so the shard's versions come out in
   * (key, valid_from) order and the table writer's sort of them is one linear pass), hands the versions to
   * {@code sink} and adds the fold's dead letters to {@code late}. Each key's events are decoded just before its
   * fold, so only one key's decoded events are live at a time. Returns how many versions it handed over.
   */
  private int fold(int shard, StateBinary binary, Map<ByteBuffer, List<SpillingArrivals.Spilled>> keys,
      String source, ShardSink sink, List<DeadLetter> late) {
    List<Map.Entry<BusinessKey, List<SpillingArrivals.Spilled>>> ordered = new ArrayList<>(keys.size());
    for (Map.Entry<ByteBuffer, List<SpillingArrivals.Spilled>> e : keys.entrySet()) {
      ordered.add(Map.entry(binary.decodeKey(e.getKey().array()), e.getValue()));
    }
    keys.clear();
    ordered.sort(Map.Entry.comparingByKey(BusinessKeys.ORDER));
    List<Version> rows = new ArrayList<>(ordered.size() * 2);
    for (int k = 0; k < ordered.size(); k++) {
      Map.Entry<BusinessKey, List<SpillingArrivals.Spilled>> e = ordered.get(k);
      ordered.set(k, null); // a folded key's encoded events are garbage while later keys fold
      List<Arrival> run = new ArrayList<>(e.getValue().size());
      for (SpillingArrivals.Spilled sp : e.getValue()) {
        run.add(new Arrival(sp.line(), binary.decodeEvent(e.getKey(), sp.event()), null, sp.valueAt()));
      }
      KeptEvents.Writer keeping = kept;
      rows.addAll(keyRunFold.fold(run, late, source, keeping == null ? null : keeping::add));
    }
    sink.accept(shard, rows);
    return rows.size();
  }

  /** Gives the fold's dead letters, which hold no record, their records read again from the input. */
  private static void withRecordsReadAgain(List<DeadLetter> dead, RecordsAgain recordsAgain) throws IOException {
    Set<Long> lines = new HashSet<>();
    dead.stream().filter(d -> d.value() == null).forEach(d -> lines.add(d.line()));
    Map<Long, byte[]> records = recordsAgain.at(lines);
    dead.replaceAll(d -> {
      if (d.value() != null) {
        return d;
      }
      byte[] record = records.get(d.line());
      if (record == null) {
        throw new IllegalStateException("The input changed while it was backfilled: line " + d.line()
            + " holds no record any more. Fix: backfill from a file nothing writes to.");
      }
      return d.withValue(record);
    });
  }

  private static List<DeadLetter> invokeAll(ExecutorService pool, List<Callable<List<DeadLetter>>> tasks)
      throws InterruptedException, ExecutionException {
    List<DeadLetter> all = new ArrayList<>();
    for (Future<List<DeadLetter>> f : pool.invokeAll(tasks)) {
      all.addAll(f.get());
    }
    return all;
  }

  /**
   * Bytes of encoded events held in memory before spilling: a quarter of the heap, as the fold of two partitions at
   * once, their Parquet writers and the decoding chunks need the rest.
   */
  static long defaultBudget() {
    return Math.max(1 << 20, Runtime.getRuntime().maxMemory() / 4);
  }

  /**
   * Creates the table at {@code tablePath} (or opens it, if it exists and fits the spec) and writes every version
   * of {@code result} in one {@code WRITE} commit.
   */
  public CommitResult write(Result result, Path tablePath) {
    return write(result, new LocalStore(tablePath));
  }

  /** As {@link #write(Result, Path)} for the table in {@code store}. */
  public CommitResult write(Result result, ObjectStore store) {
    DeltaTable table = DeltaTable.openOrCreate(store, spec);
    List<VersionChange> upserts = new ArrayList<>(result.versions().size());
    result.versions().forEach(v -> upserts.add(new VersionChange.Upsert(v, ChangeKind.OPEN)));
    return table.newCommit(Operation.WRITE).apply(upserts);
  }

  private static void writeDeadLetter(BufferedWriter dlq, String reason, String detail, byte[] record)
      throws IOException {
    dlq.write(JSON.writeValueAsString(io.dimstream.change.DeadLetters.fileLine(reason, detail, record)));
    dlq.newLine();
  }
}
