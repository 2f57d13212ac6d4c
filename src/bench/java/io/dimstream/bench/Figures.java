package io.dimstream.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** Prints one measured figure per JSON line: {@code {"bench","metric","value","unit","params"}}. */
public final class Figures {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Figures() {}

  public static void emit(String bench, String metric, double value, String unit, Map<String, ?> params) {
    ObjectNode line = JSON.createObjectNode();
    line.put("bench", bench);
    line.put("metric", metric);
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      line.put("value", (long) value);
    } else {
      line.put("value", Math.round(value * 1000) / 1000.0);
    }
    line.put("unit", unit);
    line.set("params", JSON.valueToTree(params));
    System.out.println(line);
    System.out.flush();
  }

  /** Parameters in the order given: {@code params("keys", 10, "late", 0.05)}. */
  public static Map<String, Object> params(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  /** The {@code p}-th percentile of sorted values (nearest rank). */
  static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return -1;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
