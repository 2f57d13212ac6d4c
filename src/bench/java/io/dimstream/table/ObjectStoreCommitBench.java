package io.dimstream.table;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.model.Version;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Commits of 100 changed versions into a merge-on-read table of {@code keys} keys on S3 (s3proxy in this JVM, with
 * 0 and 20 ms added to every request) beside the same on a local disk: the requests each commit sends by kind and
 * its latency (median of {@code commits}).
 */
public final class ObjectStoreCommitBench {
  private ObjectStoreCommitBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Files.createDirectories(Path.of(args.length > 1 ? args[1] : "target/bench/s3"));
    int keys = quick ? 10_000 : 100_000;
    int commits = quick ? 10 : 30;
    try (S3ProxyServer s3 = S3ProxyServer.inMemory()) {
      run("local", new LocalStore(work.resolve("local-" + System.nanoTime())), null, keys, commits);
      for (long latency : new long[] {0, 20}) {
        s3.faults.latency(0);
        ObjectStore store = s3.store("bench", "t" + latency);
        run("s3-" + latency + "ms", store, s3, keys, commits, latency);
      }
    }
  }

  private static void run(String where, ObjectStore store, S3ProxyServer s3, int keys, int commits) {
    run(where, store, s3, keys, commits, 0);
  }

  private static void run(String where, ObjectStore store, S3ProxyServer s3, int keys, int commits, long latency) {
    DeltaTable t = DeltaTable.create(store, Versions.customers(), Map.of());
    List<Version> open = new ArrayList<>(keys);
    for (long k = 0; k < keys; k++) {
      open.add(Versions.version(k, 0, null, "v" + k));
    }
    t.commit(Versions.upserts(open.toArray(Version[]::new)), Map.of(), "WRITE");
    if (s3 != null) {
      s3.faults.latency(latency);
    }
    long[] ms = new long[commits];
    long[][] requests = new long[commits][4];
    String[] kinds = {"PUT", "GET", "HEAD", "LIST"};
    for (int c = 0; c < commits; c++) {
      List<Version> changed = new ArrayList<>(100);
      for (int i = 0; i < 50; i++) {
        long k = (c * 50L + i) % keys;
        changed.add(Versions.version(k, c, (long) c + 1, "v" + k));
        changed.add(Versions.version(k, c + 1, null, "w" + k));
      }
      if (s3 != null) {
        s3.faults.resetCounts();
      }
      long start = System.nanoTime();
      t.commit(Versions.upserts(changed.toArray(Version[]::new)), Map.of("bench", (long) c), "MERGE");
      ms[c] = (System.nanoTime() - start) / 1_000_000;
      for (int k = 0; s3 != null && k < kinds.length; k++) {
        requests[c][k] = s3.faults.requests(kinds[k]);
      }
    }
    long[] sorted = ms.clone();
    Arrays.sort(sorted);
    var p = params("store", where, "table_keys", keys, "changed_versions", 100, "commits", commits,
        "added_latency_ms", latency);
    emit("s3", "commit_latency_median", sorted[commits / 2], "ms", p);
    if (s3 != null) {
      for (int k = 0; k < kinds.length; k++) {
        long[] col = new long[commits];
        for (int c = 0; c < commits; c++) {
          col[c] = requests[c][k];
        }
        Arrays.sort(col);
        emit("s3", "requests_per_commit_" + kinds[k], col[commits / 2], "requests", p);
      }
    }
  }
}
