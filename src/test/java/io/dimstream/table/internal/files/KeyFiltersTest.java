package io.dimstream.table.internal.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.LocalStore;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.dv.DeletionVectorFiles;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data files dimstream writes carry a bloom filter on each key column, and a key lookup reads a file's rows only
 * when its row groups may hold the key.
 */
class KeyFiltersTest {
  @TempDir
  Path dir;

  private static DimensionSpec spec() {
    return DimensionSpec.builder("accounts").column("region", "string").column("account", "long")
        .column("name", "string").column("at", "long").key("region", "account").sequence("at").build();
  }

  private static List<Version> rows(int n) {
    List<Version> out = new ArrayList<>();
    for (long k = 0; k < n; k++) {
      // each account in two versions, as in a file of closed versions: a dictionary would hold every key
      out.add(new Version(BusinessKey.of("eu", k / 2 * 10), Sequence.of(k), null, Arrays.asList("name" + k)));
    }
    return out;
  }

  @Test
  void shouldWriteABloomFilterOnEachKeyColumnThatHoldsEveryKey() throws Exception {
    TableLayout layout = new TableLayout(spec());
    AddFile file = DataFiles.write(dir, "part-0.parquet", rows(500), layout, true,
        org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY);
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(dir.resolve(file.path())))) {
      List<ColumnChunkMetaData> columns = reader.getFooter().getBlocks().get(0).getColumns();
      ColumnChunkMetaData region = columns.stream().filter(c -> c.getPath().toDotString().equals("region"))
          .findFirst().orElseThrow();
      ColumnChunkMetaData account = columns.stream().filter(c -> c.getPath().toDotString().equals("account"))
          .findFirst().orElseThrow();
      BloomFilter regions = reader.readBloomFilter(region);
      BloomFilter accounts = reader.readBloomFilter(account);
      assertThat(regions).as("a bloom filter on the string key column").isNotNull();
      assertThat(accounts).as("a bloom filter on the long key column").isNotNull();
      assertThat(regions.findHash(regions.hash(Binary.fromString("eu")))).isTrue();
      for (long k = 0; k < 250; k++) {
        assertThat(accounts.findHash(accounts.hash(k * 10))).as("account %d", k * 10).isTrue();
      }
      long maybe = 0;
      for (long k = 0; k < 10_000; k++) {
        maybe += accounts.findHash(accounts.hash(k * 10 + 5)) ? 1 : 0;
      }
      assertThat(maybe).as("false positives among 10,000 absent accounts").isLessThan(100);
      ColumnChunkMetaData name = columns.stream().filter(c -> c.getPath().toDotString().equals("name"))
          .findFirst().orElseThrow();
      assertThat(reader.readBloomFilter(name)).as("none on an attribute").isNull();
    }
  }

  @Test
  void shouldReadAFileForAKeyOnlyWhenItMayHoldIt() throws Exception {
    TableLayout layout = new TableLayout(spec());
    AddFile file = DataFiles.write(dir, "part-1.parquet", rows(200), layout, true,
        org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY);
    LocalStore store = new LocalStore(dir);
    List<Version> found = new ArrayList<>();
    try (DataFiles.RowIterator it = DataFiles.readKey(store, file, layout, 0, BusinessKey.of("eu", 630L))) {
      it.forEachRemaining(found::add);
    }
    assertThat(found).as("the key's two versions, from the row group that may hold it").extracting(Version::key)
        .containsExactly(BusinessKey.of("eu", 630L), BusinessKey.of("eu", 630L));
    try (DataFiles.RowIterator it = DataFiles.readKey(store, file, layout, 0, BusinessKey.of("eu", 5_000_000L))) {
      assertThat(it.hasNext()).as("a key past the file's statistics").isFalse();
    }
    try (DataFiles.RowIterator it = DataFiles.readKey(store, file, layout, 0, BusinessKey.of("us", 630L))) {
      assertThat(it.hasNext()).as("a region the bloom filter does not hold").isFalse();
    }
  }

  @Test
  void shouldReturnTheKeysLiveRowsWithTheirPositionsFromAPageFarIntoTheFile() throws Exception {
    TableLayout layout = new TableLayout(spec());
    int n = 100_000; // 50,000 accounts in key order, several pages per column
    AddFile written = DataFiles.write(dir, "part-2.parquet", rows(n), layout, true,
        org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY);
    long account = 41_234 * 10L; // rows 82,468 and 82,469, far into the file
    RoaringBitmapArray deleted = new RoaringBitmapArray();
    deleted.add(82_468); // the key's first version
    deleted.add(82_470); // the next key's, in the same page
    AddFile file = written.withDeletionVector(DeletionVectorFiles.write(dir, List.of(deleted), 0).get(0), null);

    List<Version> read = new ArrayList<>();
    List<Long> positions = new ArrayList<>();
    ReadCountingStore store = new ReadCountingStore(new LocalStore(dir));
    try (DataFiles.RowIterator it = DataFiles.readKey(store, file, layout, 0, BusinessKey.of("eu", account))) {
      while (it.hasNext()) {
        read.add(it.next());
        positions.add(it.position());
      }
    }
    assertThat(read).as("the key's live version, its deleted one skipped").extracting(v -> v.validFrom().first())
        .containsExactly(82_469L);
    assertThat(positions).as("its row position").containsExactly(82_469L); // row k is valid from k
    long lookupBytes = store.rangeBytes().getAndSet(0);
    try (DataFiles.RowIterator it = DataFiles.read(store, file, layout, 0)) {
      it.forEachRemaining(v -> { });
    }
    assertThat(lookupBytes).as("a lookup on a local disk reads the pages that may hold the key, not the file")
        .isLessThan(store.rangeBytes().get() / 2);
  }
}
