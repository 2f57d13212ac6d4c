package io.dimstream.topology;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Gives every Kafka Streams state store of the process one memory budget ({@link #BUDGET_CONFIG} bytes), whichever
 * dimension it belongs to: one block cache that also holds the stores' index and filter blocks, and write buffers
 * charged to that same cache. Kafka Streams' own default gives each store partition its own 50 MiB cache and up to
 * three 16 MiB write buffers, so tens of dimensions in one process could take gigabytes off the heap while idle.
 *
 * <p>The cache and the write buffer manager live as long as the process: a store that closes leaves them to the
 * others. The budget is not a hard cap (RocksDB lets a write go through rather than fail it when the cache is full),
 * but memory beyond it is short-lived.
 */
public final class SharedStateMemory implements RocksDBConfigSetter {
  /** The Streams property naming the budget in bytes; {@link DimensionTopology#config} sets it from the spec. */
  public static final String BUDGET_CONFIG = "dimstream.state.memory.bytes";
  /** Write buffers may take up to half the budget before RocksDB flushes the largest. */
  private static final double WRITE_BUFFER_SHARE = 0.5;
  /** Index and filter blocks are kept ahead of data blocks in a tenth of the cache. */
  private static final double HIGH_PRIORITY_SHARE = 0.1;

  /** One budget per distinct size: every dimension of a process is given the same one. */
  private static final Map<Long, Budget> BUDGETS = new HashMap<>();

  /** The cache and the write buffer manager of one budget. */
  record Budget(Cache cache, WriteBufferManager writeBuffers) {}

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    Budget budget = budget(bytes(configs));
    BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
    table.setBlockCache(budget.cache());
    table.setCacheIndexAndFilterBlocks(true);
    table.setCacheIndexAndFilterBlocksWithHighPriority(true);
    table.setPinTopLevelIndexAndFilter(true);
    options.setTableFormatConfig(table);
    options.setWriteBufferManager(budget.writeBuffers());
  }

  @Override
  public void close(String storeName, Options options) {
    // the shared cache and write buffer manager stay open for the process's other stores
  }

  /** The budget of {@code bytes}, made at its first use. */
  static synchronized Budget budget(long bytes) {
    return BUDGETS.computeIfAbsent(bytes, b -> {
      LRUCache cache = new LRUCache(b, -1, false, HIGH_PRIORITY_SHARE);
      return new Budget(cache, new WriteBufferManager((long) (b * WRITE_BUFFER_SHARE), cache));
    });
  }

  private static long bytes(Map<String, Object> configs) {
    Object value = configs.get(BUDGET_CONFIG);
    if (value == null) {
      throw new IllegalStateException(BUDGET_CONFIG + " is not set: the topology's Streams properties come from"
          + " DimensionTopology.config");
    }
    return Long.parseLong(value.toString());
  }
}
