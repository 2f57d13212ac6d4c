package io.dimstream.enrich;

import java.util.List;
import java.util.Map;

/**
 * A map of byte-array keys in unsigned lexicographic order: what the enricher keeps its versions and facts in. A
 * RocksDB store under Kafka Streams in the service, a tree map in tests and in the reference runs.
 */
public interface SortedBytesStore {
  /** The value of {@code key}, or null when there is none. */
  byte[] get(byte[] key);

  void put(byte[] key, byte[] value);

  void delete(byte[] key);

  /** A copy of the entries with {@code from <= key < to}, in key order (the caller may change the store while it reads them). */
  List<Map.Entry<byte[], byte[]>> range(byte[] from, byte[] to);
}
