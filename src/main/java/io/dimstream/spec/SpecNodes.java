package io.dimstream.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** Reads the values of a spec's YAML nodes, each failure a {@link SpecException} naming the field and the fix. */
final class SpecNodes {
  private SpecNodes() {}

  /** A typo in a nested key must not silently fall back to a default. */
  static void checkKnown(JsonNode node, String prefix, Set<String> known, Path file) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        throw SpecErrors.invalid(file, prefix + "." + f, "unknown field", "use one of " + new TreeSet<>(known));
      }
    }
  }

  static String text(JsonNode root, String field, Path file) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull() || n.asText().isBlank()) {
      throw SpecErrors.invalid(file, field, "missing", "add '" + field + ":' to the spec");
    }
    return n.asText();
  }

  static String opt(JsonNode node, String field, String dflt) {
    JsonNode n = node.get(field);
    return n == null || n.isNull() ? dflt : n.asText();
  }

  static List<String> list(JsonNode root, String field, Path file) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (n.isArray()) {
      n.forEach(x -> out.add(x.asText()));
    } else if (n.isTextual()) {
      out.add(n.asText());
    } else {
      throw SpecErrors.invalid(file, field, "expected a list of column names", "write e.g. " + field + ": [a, b]");
    }
    return out;
  }

  static int positiveInt(JsonNode n, Path file, String field) {
    if (!n.canConvertToInt() || n.asInt() <= 0) {
      throw SpecErrors.invalid(file, field, "'" + n.asText() + "' is not a positive whole number", "give a number above 0");
    }
    return n.asInt();
  }

  static long durationMicros(String text, Path file, String field) {
    Duration d = Durations.parse(text).orElseThrow(() -> SpecErrors.invalid(file, field,
        "cannot read '" + text + "' as a duration", "write e.g. 10s, 500ms, 2m or PT10S"));
    return d.toNanos() / 1000;
  }
}
