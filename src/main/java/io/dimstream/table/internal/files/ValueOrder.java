package io.dimstream.table.internal.files;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import java.util.Comparator;
import java.util.List;

/** Orders column values as Parquet and Delta statistics do (strings by code point), and versions by identity. */
public final class ValueOrder {
  public static final Comparator<Version> BY_IDENTITY = (a, b) -> {
    int c = compareKeys(a.key(), b.key());
    return c != 0 ? c : a.validFrom().compareTo(b.validFrom());
  };

  private ValueOrder() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static int compare(Object a, Object b) {
    if (a instanceof String x && b instanceof String y) {
      return compareCodePoints(x, y);
    }
    return ((Comparable) a).compareTo(b);
  }

  public static int compareKeys(BusinessKey a, BusinessKey b) {
    List<Object> x = a.values();
    List<Object> y = b.values();
    for (int i = 0; i < x.size(); i++) {
      int c = compare(x.get(i), y.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /**
   * Code point order (= UTF-8 byte order); differs from {@link String#compareTo} only around surrogates. A lone
   * surrogate counts as a code point of its own, as {@link String#codePoints()} reads it, so that the order stays
   * total (transitive) on every Java string, not only on those that have a UTF-8 form.
   */
  private static int compareCodePoints(String x, String y) {
    int n = Math.min(x.length(), y.length());
    for (int i = 0; i < n; i++) {
      char a = x.charAt(i);
      char b = y.charAt(i);
      if (a != b) {
        if (Character.isSurrogate(a) || Character.isSurrogate(b)) {
          return compareCodePointsAt(x, y, i);
        }
        return a - b;
      }
    }
    return x.length() - y.length();
  }

  /**
   * Compares the code points in which two strings, equal before {@code i}, first differ. When the shared character
   * before {@code i} is a high surrogate, the differing characters may be its second half in one string and not in
   * the other, so the code point to compare starts there.
   */
  private static int compareCodePointsAt(String x, String y, int i) {
    if (i > 0 && Character.isHighSurrogate(x.charAt(i - 1))) {
      int c = Integer.compare(x.codePointAt(i - 1), y.codePointAt(i - 1));
      if (c != 0) {
        return c;
      }
      // both lone high surrogates: the next code points start at i
    }
    return Integer.compare(x.codePointAt(i), y.codePointAt(i));
  }
}
