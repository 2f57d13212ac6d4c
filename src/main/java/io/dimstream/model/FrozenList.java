package io.dimstream.model;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * An unmodifiable copy of a list of values, nulls allowed. {@link #of} copies a list once: versions and events pass
 * their attributes on unchanged (a version closed out, an event folded into a version), and copying them again at
 * every step was a measurable share of a backfill's fold.
 */
final class FrozenList extends AbstractList<Object> implements RandomAccess {
  private final Object[] values;

  private FrozenList(Object[] values) {
    this.values = values;
  }

  /** {@code list} itself when it is a frozen list already, else a frozen copy of it. */
  static List<Object> of(List<Object> list) {
    return list instanceof FrozenList ? list : new FrozenList(list.toArray());
  }

  @Override
  public Object get(int index) {
    return values[index];
  }

  @Override
  public int size() {
    return values.length;
  }

  @Override
  public Object[] toArray() {
    return values.clone();
  }
}
