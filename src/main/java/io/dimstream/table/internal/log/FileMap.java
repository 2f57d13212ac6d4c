package io.dimstream.table.internal.log;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.pcollections.HashPMap;
import org.pcollections.HashTreePMap;
import org.pcollections.TreePMap;

/**
 * An immutable map in insertion order whose {@link #with}/{@link #without} return a new map sharing all but
 * O(log n) of its structure with this one: the state of each table version shares its live files and tombstones with
 * the version before, so a commit costs what it changed, not what the log holds. Iteration order is that of a
 * {@link java.util.LinkedHashMap} given the same puts and removes (a replaced key keeps its place).
 */
final class FileMap<V> extends AbstractMap<String, V> {
  private static final FileMap<?> EMPTY = new FileMap<>(HashTreePMap.empty(), TreePMap.empty(), 0);

  /** Key to its insertion sequence number. */
  private final HashPMap<String, Long> seqs;
  /** Insertion sequence number to entry: the iteration order. */
  private final TreePMap<Long, Map.Entry<String, V>> order;
  private final long nextSeq;

  private FileMap(HashPMap<String, Long> seqs, TreePMap<Long, Map.Entry<String, V>> order, long nextSeq) {
    this.seqs = seqs;
    this.order = order;
    this.nextSeq = nextSeq;
  }

  @SuppressWarnings("unchecked")
  static <V> FileMap<V> empty() {
    return (FileMap<V>) EMPTY;
  }

  /** This map with {@code key} mapped to {@code value}, at the key's old place when it had one, else last. */
  FileMap<V> with(String key, V value) {
    Long seq = seqs.get(key);
    if (seq == null) {
      return new FileMap<>(seqs.plus(key, nextSeq), order.plus(nextSeq, Map.entry(key, value)), nextSeq + 1);
    }
    return new FileMap<>(seqs, order.plus(seq, Map.entry(key, value)), nextSeq);
  }

  /** This map without {@code key}; this very map when it has no such key. */
  FileMap<V> without(String key) {
    Long seq = seqs.get(key);
    return seq == null ? this : new FileMap<>(seqs.minus(key), order.minus(seq), nextSeq);
  }

  @Override
  public V get(Object key) {
    Long seq = seqs.get(key);
    return seq == null ? null : order.get(seq).getValue();
  }

  @Override
  public boolean containsKey(Object key) {
    return seqs.containsKey(key);
  }

  @Override
  public int size() {
    return seqs.size();
  }

  @Override
  public Set<Map.Entry<String, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<String, V>> iterator() {
        Iterator<Map.Entry<String, V>> it = order.values().iterator();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Map.Entry<String, V> next() {
            return it.next();
          }
        };
      }

      @Override
      public int size() {
        return seqs.size();
      }
    };
  }
}
