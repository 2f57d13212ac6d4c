package io.dimstream.spec;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The Delta table properties a spec may set for the table it creates ({@code output.table_properties}), each with
 * the values it takes. The table package reads the same properties with the same rules.
 */
public final class TableSettings {
  /** {@code false}: a copy-on-write table (protocol 1 / 2) for readers that cannot apply deletion vectors. */
  public static final String ENABLE_DELETION_VECTORS = "delta.enableDeletionVectors";

  /** {@code true}: every commit that changes rows also writes Delta change data (the change data feed). */
  public static final String ENABLE_CHANGE_DATA_FEED = "delta.enableChangeDataFeed";

  private static final Pattern INTERVAL =
      Pattern.compile("\\s*interval\\s+\\d+\\s+(second|minute|hour|day|week)s?\\s*", Pattern.CASE_INSENSITIVE);
  private static final Map<String, Rule> RULES = rules();

  private TableSettings() {}

  /** One property's accepted values, and how a message describes them. */
  private record Rule(String expected, Predicate<String> accepts) {}

  private static Map<String, Rule> rules() {
    Map<String, Rule> r = new TreeMap<>();
    r.put(ENABLE_DELETION_VECTORS, new Rule("true or false",
        v -> v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")));
    r.put(ENABLE_CHANGE_DATA_FEED, new Rule("true or false",
        v -> v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")));
    r.put("dimstream.compaction.deletedFraction", new Rule("a fraction above 0 and at most 1, e.g. \"0.3\"",
        TableSettings::isFraction));
    r.put("dimstream.compaction.smallFileRows", positive());
    r.put("dimstream.compaction.rowsPerCycle", positive());
    r.put("dimstream.targetFileRows", positive());
    r.put("dimstream.buckets", new Rule("a whole number from 1 to 100000", v -> isWhole(v, 100_000)));
    r.put("dimstream.codec", codec());
    r.put("dimstream.currentCodec", codec());
    r.put("delta.checkpointInterval", positive());
    r.put("delta.deletedFileRetentionDuration", new Rule("\"interval <n> <second|minute|hour|day|week>\"",
        v -> INTERVAL.matcher(v).matches()));
    return Collections.unmodifiableMap(r);
  }

  /** The property names a spec may set, sorted. */
  public static java.util.Set<String> keys() {
    return RULES.keySet();
  }

  /**
   * Checks every property against its rule and returns them trimmed, in name order.
   *
   * @throws SpecException naming {@code file}, the field, and the allowed names or values
   */
  static Map<String, String> validate(Path file, Map<String, String> properties) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : new TreeMap<>(properties).entrySet()) {
      String field = "output.table_properties." + e.getKey();
      Rule rule = RULES.get(e.getKey());
      if (rule == null) {
        throw SpecErrors.invalid(file, field, "not a table property dimstream sets",
            "remove it, or use one of " + RULES.keySet() + " (names are case-sensitive)");
      }
      String v = e.getValue() == null ? "" : e.getValue().trim();
      if (!rule.accepts().test(v)) {
        throw SpecErrors.invalid(file, field, "'" + e.getValue() + "' is not a valid value",
            "give " + rule.expected());
      }
      out.put(e.getKey(), e.getKey().equals(ENABLE_DELETION_VECTORS)
          || e.getKey().equals(ENABLE_CHANGE_DATA_FEED) ? v.toLowerCase(Locale.ROOT) : v);
    }
    return Collections.unmodifiableMap(out);
  }

  private static Rule positive() {
    return new Rule("a positive whole number", v -> isWhole(v, Long.MAX_VALUE));
  }

  private static Rule codec() {
    return new Rule("zstd, snappy or none", v -> switch (v.toLowerCase(Locale.ROOT)) {
      case "zstd", "snappy", "none", "uncompressed" -> true;
      default -> false;
    });
  }

  private static boolean isWhole(String v, long max) {
    try {
      long n = Long.parseLong(v);
      return n >= 1 && n <= max;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean isFraction(String v) {
    try {
      double d = Double.parseDouble(v);
      return d > 0 && d <= 1;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
