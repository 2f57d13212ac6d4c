package io.dimstream.query;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Expected query answers computed from the reference fold's sorted version list by walking it key by key, a
 * different route from the engine's (which filters an unordered scan and joins on sequence points).
 */
final class ReferenceAnswers {
  private ReferenceAnswers() {}

  /** Versions valid at {@code at}, sorted by key. */
  static List<Version> asOf(List<Version> sortedFold, long at) {
    List<Version> out = new ArrayList<>();
    for (Version v : sortedFold) {
      boolean started = v.validFrom().first() <= at;
      boolean ended = v.validTo() != null && v.validTo().first() <= at;
      if (started && !ended) {
        out.add(v);
      }
    }
    return out;
  }

  static List<Version> history(List<Version> sortedFold, BusinessKey key) {
    return sortedFold.stream().filter(v -> v.key().equals(key)).toList();
  }

  /** Changes in [from, to) as "key@at kind [changed]" strings, sorted by at then key. */
  static List<String> changes(List<Version> sortedFold, long from, long to, List<String> attributeNames) {
    record Line(Version at, BusinessKey key, long first, String text) {}
    List<Line> out = new ArrayList<>();
    for (int i = 0; i < sortedFold.size(); i++) {
      Version v = sortedFold.get(i);
      Version prev = i > 0 && sortedFold.get(i - 1).key().equals(v.key()) ? sortedFold.get(i - 1) : null;
      boolean contiguous = prev != null && v.validFrom().equals(prev.validTo());
      long f = v.validFrom().first();
      if (f >= from && f < to) {
        List<String> changed = new ArrayList<>();
        for (int a = 0; a < attributeNames.size(); a++) {
          if (!contiguous || !java.util.Objects.equals(prev.attributes().get(a), v.attributes().get(a))) {
            changed.add(attributeNames.get(a));
          }
        }
        out.add(new Line(v, v.key(), f, text(v.key(), v.validFrom().toString(), contiguous ? "UPDATE" : "INSERT",
            changed)));
      }
      Version next = i + 1 < sortedFold.size() && sortedFold.get(i + 1).key().equals(v.key())
          ? sortedFold.get(i + 1) : null;
      boolean reopened = next != null && next.validFrom().equals(v.validTo());
      if (v.validTo() != null && !reopened && v.validTo().first() >= from && v.validTo().first() < to) {
        out.add(new Line(v, v.key(), v.validTo().first(), text(v.key(), v.validTo().toString(), "DELETE",
            attributeNames)));
      }
    }
    out.sort((a, b) -> a.first() != b.first() ? Long.compare(a.first(), b.first())
        : BusinessKeys.ORDER.compare(a.key(), b.key()));
    return out.stream().map(Line::text).toList();
  }

  static String text(BusinessKey key, String at, String kind, List<String> changed) {
    return key + "@" + at + " " + kind.toUpperCase(Locale.ROOT) + " " + changed;
  }

  static String text(Change c) {
    return text(c.key(), c.at().toString(), c.kind().name(), c.changed());
  }
}
