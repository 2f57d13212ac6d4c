package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.S3ProxyServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A key lookup on a merge-on-read table in S3 (s3proxy on 127.0.0.1) whose commits each left small files with keys
 * from all over the key range, so that the log's statistics prune none of them: once the files have been opened,
 * the lookup sends a GET only for the files whose bloom filter may hold the key, at most 4, and finds every version
 * of the key a full scan finds.
 */
class S3KeyLookupIT {
  private static final int KEYS = 3_000;
  private static final int COMMITS = 15;
  private static final long STRIDE = 7919;

  @Test
  void shouldLookUpAKeyWithAtMostFourGetsOnceTheFilesWereOpened() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.inMemory()) {
      ObjectStore store = s3.store("dims", "warehouse/lookup");
      DeltaTable created = DeltaTable.create(store, customers(), Map.of());
      List<Version> open = new ArrayList<>();
      for (long k = 0; k < KEYS; k++) {
        open.add(version(k, 0, null, "v" + k));
      }
      created.newCommit(Operation.WRITE).apply(upserts(open.toArray(Version[]::new)));
      long next = 0;
      for (int c = 1; c <= COMMITS; c++) {
        List<Version> changed = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
          long k = (next++ * STRIDE) % KEYS;
          changed.add(version(k, 0, (long) c, "v" + k));
          changed.add(version(k, c, null, "w" + k));
        }
        created.newCommit(Operation.MERGE).apply(upserts(changed.toArray(Version[]::new)));
      }

      Snapshot s = DeltaTable.open(store).latest();
      assertThat(s.fileCount()).as("many files whose key range is the whole table").isGreaterThan(COMMITS);
      List<Version> all;
      try (Stream<Version> rows = s.scan()) {
        all = rows.toList();
      }
      SplittableRandom random = new SplittableRandom(7);
      for (int i = 0; i < 30; i++) {
        // a changed key (a version in a commit's file and one in the table's first files) or one never changed
        BusinessKey key = BusinessKey.of(i % 2 == 0 ? (random.nextLong(COMMITS * 25L) * STRIDE) % KEYS
            : random.nextLong(KEYS));
        List<Version> expected = sorted(all.stream().filter(v -> v.key().equals(key)).toList());
        s3.faults.resetCounts();
        List<Version> found = s.history(key);
        assertThat(sorted(found)).as("versions of %s", key).isEqualTo(expected).isNotEmpty();
        assertThat(s3.faults.requests("GET")).as("GETs of the lookup of %s", key).isLessThanOrEqualTo(4);
        assertThat(s3.faults.requests("LIST") + s3.faults.requests("HEAD")).isZero();
      }
    }
  }
}
