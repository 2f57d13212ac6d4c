package io.dimstream.bench;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.table.BulkLoad;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongFunction;

/**
 * Fills a new table with keys 0..N-1 through the bulk loader, as a backfill writes it: each bucket's rows written on
 * a core of its own, one commit. Keys are grouped by bucket with int arrays: tens of millions of {@code Version}
 * objects at once would not fit the heap.
 */
final class BucketedLoad {
  private BucketedLoad() {}

  /** Writes {@code rowsOf(k)} for every key and commits; returns the version committed. */
  static long load(DeltaTable t, int keys, LongFunction<List<Version>> rowsOf) throws Exception {
    BulkLoad load = t.bulkLoad();
    int buckets = load.buckets();
    int[] bucketOf = new int[keys];
    int[] offsets = new int[buckets + 1];
    for (int k = 0; k < keys; k++) {
      bucketOf[k] = load.bucketOf(BusinessKey.of((long) k));
      offsets[bucketOf[k] + 1]++;
    }
    for (int b = 0; b < buckets; b++) {
      offsets[b + 1] += offsets[b];
    }
    int[] byBucket = new int[keys];
    int[] fill = Arrays.copyOf(offsets, buckets);
    for (int k = 0; k < keys; k++) {
      byBucket[fill[bucketOf[k]]++] = k;
    }
    bucketOf = null; // the largest array, no longer needed while the buckets are written
    ExecutorService pool = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int b = 0; b < buckets; b++) {
        int bucket = b;
        done.add(pool.submit(() -> {
          List<Version> rows = new ArrayList<>(2 * (offsets[bucket + 1] - offsets[bucket]));
          for (int i = offsets[bucket]; i < offsets[bucket + 1]; i++) {
            rows.addAll(rowsOf.apply(byBucket[i]));
          }
          load.write(bucket, rows);
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    return load.commit(Operation.WRITE).version();
  }
}
