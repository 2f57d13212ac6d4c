package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Stores of two dimensions, opened as Kafka Streams opens them (its table config, then our setter), are real RocksDB
 * databases that report one cache of the budget's size, and whose write buffers are charged to it.
 */
class SharedStateMemoryTest {
  private static final long BUDGET = 64L << 20;

  @TempDir
  Path dir;

  @Test
  void shouldGiveTheStoresOfTwoDimensionsOneCacheOfTheBudgetChargedWithTheirWriteBuffers() throws Exception {
    RocksDB.loadLibrary();
    SharedStateMemory setter = new SharedStateMemory();
    try (Options a = options(setter, "customers-events"); Options b = options(setter, "products-events");
        RocksDB customers = RocksDB.open(a, dir.resolve("customers").toString());
        RocksDB products = RocksDB.open(b, dir.resolve("products").toString())) {
      long before = customers.getLongProperty("rocksdb.block-cache-usage");
      write(customers, 20_000);

      assertThat(customers.getLongProperty("rocksdb.block-cache-capacity")).isEqualTo(BUDGET);
      assertThat(products.getLongProperty("rocksdb.block-cache-capacity")).isEqualTo(BUDGET);
      long usage = products.getLongProperty("rocksdb.block-cache-usage");
      assertThat(usage).as("the other dimension's store sees the memtable written in this one's")
          .isGreaterThan(before + (1L << 20)).isEqualTo(customers.getLongProperty("rocksdb.block-cache-usage"));
      assertThat(usage).isLessThanOrEqualTo(BUDGET);
    }
  }

  @Test
  void shouldGiveOneBudgetToEverySetterAskingForItsSize() {
    assertThat(SharedStateMemory.budget(BUDGET)).isSameAs(SharedStateMemory.budget(BUDGET));
    assertThat(SharedStateMemory.budget(BUDGET).cache()).isNotSameAs(SharedStateMemory.budget(2 * BUDGET).cache());
  }

  private static Options options(SharedStateMemory setter, String store) {
    Options options = new Options().setCreateIfMissing(true);
    options.setTableFormatConfig(new BlockBasedTableConfig());
    setter.setConfig(store, options, Map.of(SharedStateMemory.BUDGET_CONFIG, Long.toString(BUDGET)));
    return options;
  }

  /** {@code n} entries of about 200 bytes: about 4 MiB, in the memtable (under the write buffer's flush size). */
  private static void write(RocksDB db, int n) throws RocksDBException {
    byte[] value = "v".repeat(200).getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < n; i++) {
      db.put(("key-" + i).getBytes(StandardCharsets.UTF_8), value);
    }
  }
}
