package io.dimstream.table;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.HistoryQueries;
import io.dimstream.query.TimeTravel;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.S3ProxyServer;
import io.dimstream.table.internal.files.DataFileTails;
import io.dimstream.table.internal.index.CurrentRowIndex;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A merge-on-read table of {@code keys} keys on a local disk and on S3 (s3proxy in this JVM, with 0 and 20 ms added
 * to every request), the same table copied to both: opening it, rebuilding the position index, commits of 100 and of
 * 10,000 changed versions (latency, requests by kind, and the requests that had to wait for one another), the as-of
 * lookup of one key and the full as-of scan. Every S3 figure comes from the same run as the local one.
 */
public final class ObjectStoreCommitBench {
  private static final String[] KINDS = {"PUT", "GET", "HEAD", "LIST", "DELETE"};
  /** A prime that is no divisor of the key count: key {@code i * STRIDE % keys} visits every key once. */
  private static final long STRIDE = 7919;

  private final int keys;
  private final int commits;
  private final int bigCommits;
  private final int lookups;
  /** Versions written so far per table: each commit changes keys no earlier commit changed. */
  private long nextChange;
  private int commitHour = 1;

  private ObjectStoreCommitBench(boolean quick) {
    this.keys = quick ? 100_000 : 1_000_000;
    this.commits = quick ? 10 : 20;
    this.bigCommits = 3;
    this.lookups = quick ? 20 : 40;
  }

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/s3"));
    new ObjectStoreCommitBench(quick).run(work);
  }

  private void run(Path work) throws Exception {
    ObjectStore local = new LocalStore(work.resolve("local-" + System.nanoTime()));
    DeltaTable.create(local, Versions.customers(), Map.of());
    List<Version> open = new ArrayList<>(keys);
    for (long k = 0; k < keys; k++) {
      open.add(Versions.version(k, 0, null, "v" + k));
    }
    DeltaTable.open(local).newCommit(Operation.WRITE).apply(Versions.upserts(open.toArray(Version[]::new)));
    open = null;
    try (S3ProxyServer s3 = S3ProxyServer.inMemory()) {
      ObjectStore remote = s3.store("bench", "customers");
      for (ObjectInfo o : local.list("", null)) {
        remote.put(o.key(), local.read(o.key()));
      }
      long localNext = nextChange;
      int localHour = commitHour;
      measure("local", local, null, 0);
      // the S3 table starts where the local one started: the same keys change in the same order
      nextChange = localNext;
      commitHour = localHour;
      measure("s3-0ms", remote, s3, 0);
      measure("s3-20ms", remote, s3, 20);
    }
  }

  private void measure(String where, ObjectStore store, S3ProxyServer s3, long latency) {
    if (s3 != null) {
      s3.faults.latency(latency);
    }
    Map<String, Object> p = params("store", where, "table_keys", keys, "added_latency_ms", latency);
    DataFileTails.clear(); // each store's figures start as a new process would, with no data-file tail cached

    Requests r = new Requests(s3);
    long start = System.nanoTime();
    DeltaTable t = DeltaTable.open(store);
    Snapshot s = t.latest();
    emitTimed(where, "open_table", start, r, p);

    r = new Requests(s3);
    start = System.nanoTime();
    new CurrentRowIndex(store).at(s.state, s.layout);
    emitTimed(where, "position_index_rebuild", start, r, p);

    for (int i = 0; i < 3; i++) {
      commit(t, 100); // warm-up: the table's own index, and the JIT
    }
    commits(t, where, s3, 100, commits, p);
    commits(t, where, s3, 10_000, bigCommits, p);

    long at = Versions.at(commitHour + 1).first();
    lookups(t, s3, at, "as_of_lookup_one_key", p);
    // as a table the compactor's maintenance (or `table optimize`) keeps: small files merged, deletion vectors gone
    r = new Requests(s3);
    start = System.nanoTime();
    t.optimize();
    emitTimed(where, "optimize", start, r, p);
    lookups(t, s3, at, "as_of_lookup_one_key_optimized", p);

    HistoryQueries q = new HistoryQueries(new DeltaVersionTable(t).at(new TimeTravel.Latest()));
    r = new Requests(s3);
    start = System.nanoTime();
    long rows;
    try (Stream<Version> all = q.asOf(at, Set.of(), List.of())) {
      rows = all.count();
    }
    if (rows != keys) {
      throw new IllegalStateException("the as-of scan found " + rows + " rows, not " + keys);
    }
    emitTimed(where, "as_of_full_scan", start, r, p);
  }

  /** The as-of lookup of one random key, {@link #lookups} times on the latest snapshot (cached, as a server has it). */
  private void lookups(DeltaTable t, S3ProxyServer s3, long at, String what, Map<String, Object> p) {
    HistoryQueries q = new HistoryQueries(new DeltaVersionTable(t).at(new TimeTravel.Latest()));
    SplittableRandom random = new SplittableRandom(42);
    q.asOf(BusinessKey.of(0L), at); // warm-up: the statistics of the snapshot's files
    long[] ms = new long[lookups];
    long[][] req = new long[lookups][];
    for (int i = 0; i < lookups; i++) {
      long key = random.nextLong(keys);
      Requests one = new Requests(s3);
      long st = System.nanoTime();
      if (q.asOf(BusinessKey.of(key), at).isEmpty()) {
        throw new IllegalStateException("key " + key + " has no version valid now");
      }
      ms[i] = (System.nanoTime() - st) / 1_000_000;
      req[i] = one.counts();
    }
    emitMedians(what, ms, req, p, "lookups", lookups);
    if (s3 != null) {
      // what the process keeps to skip files: the tails (footers, bloom filters) of the data files it opened
      emit("s3", what + "_tail_cache", DataFileTails.size() / 1024, "KiB", p);
    }
  }

  /** {@code n} commits of {@code changed} versions: median latency and requests, and the 90th percentile latency. */
  private void commits(DeltaTable t, String where, S3ProxyServer s3, int changed, int n, Map<String, Object> base) {
    long[] ms = new long[n];
    long[][] req = new long[n][];
    long[] sequential = new long[n];
    for (int c = 0; c < n; c++) {
      Requests r = new Requests(s3);
      long start = System.nanoTime();
      commit(t, changed);
      ms[c] = (System.nanoTime() - start) / 1_000_000;
      req[c] = r.counts();
      sequential[c] = s3 == null ? 0 : s3.faults.sequentialRequests();
    }
    Map<String, Object> p = new java.util.LinkedHashMap<>(base);
    p.put("changed_versions", changed);
    p.put("commits", n);
    String what = "commit_" + changed;
    emitMedians(what, ms, req, p, null, 0);
    long[] sorted = ms.clone();
    Arrays.sort(sorted);
    emit("s3", what + "_latency_p90", sorted[Math.min(n - 1, (int) Math.ceil(n * 0.9) - 1)], "ms", p);
    if (s3 != null) {
      emit("s3", what + "_sequential_requests_median", median(sequential), "requests", p);
    }
  }

  /** One commit that closes the open version of {@code changed / 2} keys no commit touched and opens a new one. */
  private void commit(DeltaTable t, int changed) {
    int hour = commitHour++;
    List<Version> versions = new ArrayList<>(changed);
    for (int i = 0; i < changed / 2; i++) {
      long k = (nextChange++ * STRIDE) % keys;
      versions.add(Versions.version(k, 0, (long) hour, "v" + k));
      versions.add(Versions.version(k, hour, null, "w" + k));
    }
    CommitResult r = t.newCommit(Operation.MERGE).apply(Versions.upserts(versions.toArray(Version[]::new)));
    if (r.attempts() != 1 || r.rowsUpdated() != changed / 2) {
      throw new IllegalStateException("unexpected commit: " + r);
    }
  }

  private static void emitTimed(String where, String what, long startNanos, Requests r, Map<String, Object> p) {
    emit("s3", what + "_ms", (System.nanoTime() - startNanos) / 1_000_000, "ms", p);
    long[] counts = r.counts();
    for (int k = 0; r.s3 != null && k < KINDS.length; k++) {
      emit("s3", what + "_requests_" + KINDS[k], counts[k], "requests", p);
    }
  }

  private static void emitMedians(String what, long[] ms, long[][] req, Map<String, Object> base, String nKey, int n) {
    Map<String, Object> p = new java.util.LinkedHashMap<>(base);
    if (nKey != null) {
      p.put(nKey, n);
    }
    emit("s3", what + "_latency_median", median(ms), "ms", p);
    if (req[0] == null) {
      return;
    }
    for (int k = 0; k < KINDS.length; k++) {
      long[] col = new long[req.length];
      for (int i = 0; i < req.length; i++) {
        col[i] = req[i][k];
      }
      emit("s3", what + "_requests_" + KINDS[k] + "_median", median(col), "requests", p);
    }
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** The requests the S3 server serves from now on, by kind; nothing for a local table. */
  private static final class Requests {
    final S3ProxyServer s3;

    Requests(S3ProxyServer s3) {
      this.s3 = s3;
      if (s3 != null) {
        s3.faults.resetCounts();
      }
    }

    long[] counts() {
      if (s3 == null) {
        return null;
      }
      long[] out = new long[KINDS.length];
      for (int k = 0; k < KINDS.length; k++) {
        out[k] = s3.faults.requests(KINDS[k]);
      }
      return out;
    }
  }
}
