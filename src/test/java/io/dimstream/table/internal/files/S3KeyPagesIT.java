package io.dimstream.table.internal.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.S3ProxyServer;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.dv.DeletionVectorFiles;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

/**
 * A key lookup in a data file of many pages on S3 (s3proxy on 127.0.0.1): the row group comes in one GET, the key's
 * pages are picked from it, and the key's live rows come back with their positions, its deleted ones skipped.
 */
class S3KeyPagesIT {
  private static final int ROWS = 120_000; // 60,000 accounts, two versions each: several pages per column

  @Test
  void shouldReadAKeyFromAFileOfManyPagesInOneGetOnceItsTailIsKnown() throws Exception {
    DimensionSpec spec = DimensionSpec.builder("accounts").column("account", "long").column("note", "string")
        .column("at", "long").key("account").sequence("at").build();
    TableLayout layout = new TableLayout(spec);
    SplittableRandom random = new SplittableRandom(3);
    List<Version> rows = new ArrayList<>();
    for (long r = 0; r < ROWS; r++) {
      // notes that do not compress, so that the row group is larger than one read-ahead block
      rows.add(new Version(BusinessKey.of(r / 2), Sequence.of(r), null,
          Arrays.asList(Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong()))));
    }
    try (S3ProxyServer s3 = S3ProxyServer.inMemory()) {
      ObjectStore store = s3.store("dims", "accounts");
      AddFile written = DataFiles.write(store, "part-0.parquet", rows, layout, true, CompressionCodecName.SNAPPY);
      assertThat(written.size()).as("a file larger than what its first open reads").isGreaterThan(3L << 20);
      RoaringBitmapArray deleted = new RoaringBitmapArray();
      deleted.add(100_000); // the first version of account 50,000
      AddFile file = written.withDeletionVector(DeletionVectorFiles.write(store, List.of(deleted), 0).get(0), null);
      DataFileTails.clear();

      for (long account : new long[] {50_000, 50_001, 17, 59_999}) {
        s3.faults.resetCounts();
        List<Long> positions = new ArrayList<>();
        List<Version> found = new ArrayList<>();
        try (DataFiles.RowIterator it = DataFiles.readKey(store, file, layout, 0, BusinessKey.of(account))) {
          while (it.hasNext()) {
            found.add(it.next());
            positions.add(it.position());
          }
        }
        List<Long> live = account == 50_000 ? List.of(100_001L) : List.of(2 * account, 2 * account + 1);
        assertThat(found).as("account %d", account).extracting(v -> v.validFrom().first()).isEqualTo(live);
        assertThat(positions).as("positions of account %d", account).isEqualTo(live); // row r is valid from r
        if (account != 50_000) { // the first lookup also read the file's tail and the deletion vector
          assertThat(s3.faults.requests("GET")).as("GETs of the lookup of account %d", account)
              .isLessThanOrEqualTo(2); // the row group, and the deletion vector
        }
      }
    }
  }
}
