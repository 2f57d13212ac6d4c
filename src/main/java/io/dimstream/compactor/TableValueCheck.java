package io.dimstream.compactor;

import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import java.util.List;
import java.util.Optional;

/** Finds what in a version change the table cannot store: text that is not valid Unicode (a lone surrogate). */
final class TableValueCheck {
  private TableValueCheck() {}

  /** A sentence naming the first value the table cannot take, or empty when it can take them all. */
  static Optional<String> problem(VersionChange change) {
    Optional<String> key = problem("key", change.key().values());
    if (key.isPresent() || !(change instanceof VersionChange.Upsert u)) {
      return key;
    }
    Version v = u.version();
    return problem("attribute", v.attributes());
  }

  private static Optional<String> problem(String what, List<Object> values) {
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) instanceof String s) {
        int bad = loneSurrogate(s);
        if (bad >= 0) {
          return Optional.of(what + " value " + (i + 1) + " holds a lone UTF-16 surrogate (U+"
              + Integer.toHexString(s.charAt(bad)).toUpperCase(java.util.Locale.ROOT) + " at char " + bad
              + "), which is not Unicode text and cannot be written as UTF-8");
        }
      }
    }
    return Optional.empty();
  }

  /** The index of the first surrogate without its partner, or -1. */
  static int loneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
          continue;
        }
        return i;
      }
      if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
