package io.dimstream.batch;

import io.dimstream.change.Decoded;
import io.dimstream.model.BusinessKey;
import io.dimstream.topology.Scd2Step;
import io.dimstream.topology.UnknownFieldWarnings;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;

/** Decodes backfill input in chunks on a pool and hands the chunks back in input order. */
final class ParallelDecode {
  static final int CHUNK = 4096;

  /**
   * One decoded chunk: how many records it held, its events with their shards, in input order, and its rejected
   * records; or its events already encoded ({@code encoded}, and {@code arrivals} empty).
   */
  record Chunk(int records, List<Arrival> arrivals, int[] shards, List<DeadLetter> rejected,
      SpillingArrivals.Block encoded) {}

  /** Consecutive records of the input, made into records on the decoding thread (e.g. a block of lines split). */
  interface Batch {
    List<Backfill.Input> inputs();
  }

  private final Scd2Step step;
  private final UnknownFieldWarnings unknownFields;
  private final ExecutorService pool;
  private final int inFlight;

  ParallelDecode(Scd2Step step, UnknownFieldWarnings unknownFields, ExecutorService pool, int threads) {
    this.step = step;
    this.unknownFields = unknownFields;
    this.pool = pool;
    // enough chunks queued to keep every thread busy, few enough that memory holds decoded events, not raw lines
    this.inFlight = 2 * threads;
  }

  /** Consecutive records of {@code records} in batches of {@link #CHUNK}, grouped on the calling thread. */
  static Iterator<Batch> batches(Iterator<Backfill.Input> records) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return records.hasNext();
      }

      @Override
      public Batch next() {
        List<Backfill.Input> batch = new ArrayList<>(CHUNK);
        while (batch.size() < CHUNK && records.hasNext()) {
          batch.add(records.next());
        }
        return () -> batch;
      }
    };
  }

  /**
   * Takes every batch, makes it into records and decodes them on a pool thread, passes each chunk through
   * {@code onWorker} on that thread, then to {@code consumer} on this one in input order; returns the count of
   * records.
   */
  long run(Iterator<? extends Batch> batches, String source, ToIntFunction<BusinessKey> shardOf,
      UnaryOperator<Chunk> onWorker, Consumer<Chunk> consumer) {
    ArrayDeque<Future<Chunk>> queue = new ArrayDeque<>();
    long[] read = {0};
    Consumer<Chunk> counted = chunk -> {
      read[0] += chunk.records();
      consumer.accept(chunk);
    };
    while (batches.hasNext()) {
      Batch batch = batches.next();
      queue.add(pool.submit(() -> onWorker.apply(decode(batch.inputs(), source, shardOf))));
      if (queue.size() >= inFlight) {
        counted.accept(join(queue.poll()));
      }
    }
    while (!queue.isEmpty()) {
      counted.accept(join(queue.poll()));
    }
    return read[0];
  }

  private Chunk decode(List<Backfill.Input> batch, String source, ToIntFunction<BusinessKey> shardOf) {
    List<Arrival> arrivals = new ArrayList<>(batch.size());
    int[] shards = new int[batch.size()];
    List<DeadLetter> rejected = new ArrayList<>();
    for (Backfill.Input in : batch) {
      Decoded d = step.decode(null, in.value(), -1, () -> source + ", line " + in.line());
      if (d instanceof Decoded.Accepted a) {
        unknownFields.seen(a.unknownFields(), () -> source + ", line " + in.line());
        shards[arrivals.size()] = shardOf.applyAsInt(a.event().key());
        arrivals.add(new Arrival(in.line(), a.event(), in.value()));
      } else if (d instanceof Decoded.Rejected r) {
        rejected.add(new DeadLetter(in.line(), r.reason(), r.detail(), in.value()));
      }
      // Decoded.Skipped: a Debezium tombstone after its delete, skipped as the topology skips it
    }
    return new Chunk(batch.size(), arrivals, shards, rejected, null);
  }

  private static Chunk join(Future<Chunk> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      throw BackfillTasks.interrupted(e);
    } catch (ExecutionException e) {
      throw BackfillTasks.failed(e);
    }
  }
}
