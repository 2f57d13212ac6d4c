package io.dimstream.model;

import java.util.Comparator;
import java.util.List;

/** Orders business keys column by column, each by its natural order: the order history is printed in. */
public final class BusinessKeys {
  private BusinessKeys() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static final Comparator<BusinessKey> ORDER = (a, b) -> {
    List<Object> x = a.values();
    List<Object> y = b.values();
    for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
      int c = ((Comparable) x.get(i)).compareTo(y.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.size(), y.size());
  };

  /** Key, then {@code valid_from}. */
  public static final Comparator<Version> VERSION_ORDER =
      Comparator.comparing(Version::key, ORDER).thenComparing(Version::validFrom);
}
