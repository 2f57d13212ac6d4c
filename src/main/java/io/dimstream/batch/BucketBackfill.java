package io.dimstream.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.Decoded;
import io.dimstream.change.DeadLetters;
import io.dimstream.codec.StateBinary;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.BulkLoad;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import io.dimstream.topology.Scd2Step;
import io.dimstream.topology.UnknownFieldWarnings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backfill cut by table bucket, for a job that runs its pieces in several processes (the Spark job): any process
 * decodes records ({@link #decode}); the one given every event of a bucket, grouped by key and each key's in arrival
 * order, folds and writes that bucket ({@link #writeBucket}); one process commits every bucket's files in one commit
 * ({@link #commit}). The same decoding, lateness rule, fold and table writer as {@link Backfill}: the same records in
 * the same arrival order give the same table, the same dead letters and the same kept events.
 *
 * <p>An arrival is identified by its input file's place in the input ({@code file}, from 0) and its place in that
 * file ({@code position}, e.g. the byte offset of its line): arrival order is by file, then position.
 */
public final class BucketBackfill {
  private static final Logger LOG = LoggerFactory.getLogger(BucketBackfill.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DimensionSpec spec;
  private final ObjectStore store;
  private final Scd2Step step;
  private final UnknownFieldWarnings unknownFields;
  private final StateBinary binary;
  private final KeyRunFold keyRunFold;
  private final DeltaTable table;
  /** This process's load: it buckets keys and, in the committing process, commits. */
  private final BulkLoad bulk;

  /**
   * Opens the pieces of a load into the table in {@code store}, which {@link #create} made.
   *
   * @throws io.dimstream.table.TableException when the table holds data already or does not fit the spec
   */
  public BucketBackfill(DimensionSpec spec, ObjectStore store) {
    this.spec = spec;
    this.store = store;
    // a failing engine sends the record to the dead letters, as in the topology
    this.step = new Scd2Step(spec, ChangeDecoder.forSpec(spec), e -> false);
    this.unknownFields = new UnknownFieldWarnings(spec.name(), spec.source());
    this.binary = new StateBinary(spec);
    this.keyRunFold = new KeyRunFold(spec);
    this.table = DeltaTable.openOrCreate(store, spec);
    this.bulk = table.bulkLoad();
  }

  /**
   * Creates the table in {@code store} (or opens it when it exists empty and fits the spec) and returns its number
   * of buckets: the load's units of parallel work, each {@link #writeBucket written} by one process.
   *
   * @throws io.dimstream.table.TableException when the table holds data already or does not fit the spec
   */
  public static int create(DimensionSpec spec, ObjectStore store) {
    return DeltaTable.openOrCreate(store, spec).bulkLoad().buckets();
  }

  /** What decoding one record gave. */
  public sealed interface Outcome permits Event, Rejected, Skipped {}

  /** An event of the key {@code key} (encoded, compared as bytes), of bucket {@code bucket}. */
  public record Event(int bucket, byte[] key, byte[] event) implements Outcome {}

  /** A rejected record: its dead-letter line, {@code {reason, detail, record}} as {@code backfill --dlq} writes it. */
  public record Rejected(String deadLetter) implements Outcome {}

  /** A record that carries no change (a Debezium tombstone after its delete), skipped as the topology skips it. */
  public record Skipped() implements Outcome {}

  /**
   * Decodes one record as the changes topic's value; {@code where} names it in log lines (e.g. file and offset).
   * A blank record is {@link Skipped}, as {@code backfill} skips blank lines.
   */
  public Outcome decode(byte[] record, String where) {
    if (BlankLines.isBlank(record, 0, record.length)) {
      return new Skipped();
    }
    Decoded d = step.decode(null, record, -1, () -> where);
    if (d instanceof Decoded.Accepted a) {
      unknownFields.seen(a.unknownFields(), () -> where);
      BusinessKey key = a.event().key();
      return new Event(bulk.bucketOf(key), binary.encodeKey(key), binary.encodeEvent(a.event()));
    }
    if (d instanceof Decoded.Rejected r) {
      return new Rejected(deadLetter(r.reason(), r.detail(), record));
    }
    return new Skipped();
  }

  /** One event of a bucket as {@link #writeBucket} takes it: its key and event as {@link #decode} gave them. */
  public record Arrived(byte[] key, byte[] event, byte[] record, int file, long position) {}

  /** A dead letter of the fold (beyond the lateness horizon, or rejected on the engine's path), at its arrival. */
  public record FoldRejection(int file, long position, String deadLetter) {}

  /**
   * What writing a bucket did: its data files (the Delta log's {@code add} actions, for {@link #commit}), the
   * versions they hold, the events kept beside the table, and the fold's dead letters.
   */
  public record BucketWritten(List<String> files, long versions, long keptEvents, List<FoldRejection> rejected) {
    public BucketWritten {
      files = List.copyOf(files);
      rejected = List.copyOf(rejected);
    }
  }

  /**
   * Folds every key of bucket {@code bucket} once and writes the bucket's data files and its part of the kept
   * events (load {@code loadId}).
   *
   * @param events every event of the bucket, each key's together and in arrival order (file, then position)
   * @param source names the input in log lines
   * @throws io.dimstream.table.TableException when a file cannot be written
   */
  public BucketWritten writeBucket(int bucket, Iterator<Arrived> events, String loadId, String source) {
    KeptEvents.Part kept = new KeptEvents.Part(store, spec, loadId, bucket);
    List<Version> versions = new ArrayList<>();
    List<FoldRejection> rejected = new ArrayList<>();
    List<Arrived> run = new ArrayList<>();
    while (events.hasNext()) {
      Arrived a = events.next();
      if (!run.isEmpty() && !Arrays.equals(run.get(0).key(), a.key())) {
        foldKey(run, versions, rejected, kept, source);
        run.clear();
      }
      run.add(a);
    }
    if (!run.isEmpty()) {
      foldKey(run, versions, rejected, kept, source);
    }
    // a load of its own: a process writes several buckets at once, and each hands over its own files
    BulkLoad load = table.bulkLoad();
    if (!versions.isEmpty()) {
      load.write(bucket, versions);
    }
    try {
      long keptEvents = kept.write();
      return new BucketWritten(load.writtenActions(), versions.size(), keptEvents, rejected);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void foldKey(List<Arrived> run, List<Version> versions, List<FoldRejection> rejected,
      KeptEvents.Part kept, String source) {
    BusinessKey key = binary.decodeKey(run.get(0).key());
    List<Arrival> arrivals = new ArrayList<>(run.size());
    for (int i = 0; i < run.size(); i++) {
      Arrived a = run.get(i);
      // the arrival's index in the run stands for its line: a dead letter finds its file and position by it
      arrivals.add(new Arrival(i, binary.decodeEvent(key, a.event()), a.record()));
    }
    List<DeadLetter> late = new ArrayList<>();
    versions.addAll(keyRunFold.fold(arrivals, late, source, kept::add));
    for (DeadLetter d : late) {
      Arrived a = run.get((int) d.line());
      rejected.add(new FoldRejection(a.file(), a.position(), deadLetter(d.reason(), d.detail(), a.record())));
    }
  }

  /**
   * Commits the files of every bucket ({@link BucketWritten#files}, {@code versions} versions in all) as one
   * {@code WRITE} commit, then names the buckets' parts of the kept events ({@code buckets} parts of load
   * {@code loadId}, {@code keptEvents} events). Failing to name them leaves the table as committed: a takeover then
   * has its rows alone.
   *
   * @throws io.dimstream.table.CommitConflictException when another writer committed first; the files are deleted
   * @throws io.dimstream.table.CommitStateUnknownException when the commit's fate is unknown; nothing is deleted
   */
  public CommitResult commit(List<String> files, long versions, String loadId, int buckets, long keptEvents) {
    bulk.adopt(files, versions);
    CommitResult result;
    try {
      result = bulk.commit(Operation.WRITE);
    } catch (io.dimstream.table.CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      bulk.abort();
      KeptEvents.deleteParts(store, loadId, buckets);
      throw e;
    }
    try {
      KeptEvents.manifest(store, loadId, buckets, keptEvents, result.version());
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not keep the events the rows do not show beside the table ({}): `run` will take the table over"
          + " from its rows alone", e.toString());
      KeptEvents.deleteParts(store, loadId, buckets);
    }
    return result;
  }

  /** Deletes the files and kept-event parts of a load given up before its commit. */
  public void abort(List<String> files, String loadId, int buckets) {
    bulk.adopt(files, 0);
    bulk.abort();
    KeptEvents.deleteParts(store, loadId, buckets);
  }

  private static String deadLetter(String reason, String detail, byte[] record) {
    try {
      return JSON.writeValueAsString(DeadLetters.fileLine(reason, detail, record));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
