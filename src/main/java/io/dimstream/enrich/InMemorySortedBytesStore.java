package io.dimstream.enrich;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A {@link SortedBytesStore} in a tree map; not thread-safe. */
public final class InMemorySortedBytesStore implements SortedBytesStore {
  private final TreeMap<byte[], byte[]> map = new TreeMap<>(Arrays::compareUnsigned);

  @Override
  public byte[] get(byte[] key) {
    return map.get(key);
  }

  @Override
  public void put(byte[] key, byte[] value) {
    map.put(key, value);
  }

  @Override
  public void delete(byte[] key) {
    map.remove(key);
  }

  @Override
  public List<Map.Entry<byte[], byte[]>> range(byte[] from, byte[] to) {
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
    map.subMap(from, true, to, false).forEach((k, v) -> out.add(Map.entry(k, v)));
    return out;
  }

  public int size() {
    return map.size();
  }
}
