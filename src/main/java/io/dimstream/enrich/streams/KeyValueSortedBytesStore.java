package io.dimstream.enrich.streams;

import io.dimstream.enrich.SortedBytesStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/** A {@link SortedBytesStore} over a Kafka Streams key-value store (RocksDB, changelogged: its bytes order keys as unsigned). */
final class KeyValueSortedBytesStore implements SortedBytesStore {
  private final KeyValueStore<Bytes, byte[]> store;

  KeyValueSortedBytesStore(KeyValueStore<Bytes, byte[]> store) {
    this.store = store;
  }

  @Override
  public byte[] get(byte[] key) {
    return store.get(Bytes.wrap(key));
  }

  @Override
  public void put(byte[] key, byte[] value) {
    store.put(Bytes.wrap(key), value);
  }

  @Override
  public void delete(byte[] key) {
    store.delete(Bytes.wrap(key));
  }

  @Override
  public List<Map.Entry<byte[], byte[]>> range(byte[] from, byte[] to) {
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
    if (Arrays.compareUnsigned(from, to) >= 0) {
      return out;
    }
    // Kafka's range includes its upper bound; ours does not
    try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(from), Bytes.wrap(to))) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> kv = it.next();
        if (!Arrays.equals(kv.key.get(), to)) {
          out.add(Map.entry(kv.key.get(), kv.value));
        }
      }
    }
    return out;
  }
}
