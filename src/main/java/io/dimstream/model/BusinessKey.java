package io.dimstream.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The values of a dimension's key columns, in the spec's key order. Values are the in-memory forms of
 * {@link io.dimstream.types.ColumnType}; none is null.
 */
public record BusinessKey(List<Object> values) {
  public BusinessKey {
    values = Collections.unmodifiableList(Arrays.asList(values.toArray()));
  }

  public static BusinessKey of(Object... values) {
    return new BusinessKey(Arrays.asList(values));
  }

  @Override
  public String toString() {
    return values.size() == 1 ? String.valueOf(values.get(0)) : values.toString();
  }
}
