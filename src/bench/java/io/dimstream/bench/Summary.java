package io.dimstream.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Prints the figures of a results file as one table: bench, metric, value, unit, params. */
public final class Summary {
  private Summary() {}

  public static void main(String[] args) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"bench", "metric", "value", "unit", "params"});
    for (String line : Files.readAllLines(Path.of(args[0]))) {
      if (line.isBlank() || !line.startsWith("{")) {
        continue;
      }
      JsonNode n = json.readTree(line);
      JsonNode v = n.path("value");
      String value = v.isIntegralNumber() ? String.format(Locale.ROOT, "%,d", v.asLong())
          : String.format(Locale.ROOT, "%,.2f", v.asDouble());
      @SuppressWarnings("unchecked")
      Map<String, Object> params = json.convertValue(n.path("params"), Map.class);
      String p = params == null ? "" : params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(" "));
      rows.add(new String[] {n.path("bench").asText(), n.path("metric").asText(), value, n.path("unit").asText(),
          p.length() > 110 ? p.substring(0, 107) + "..." : p});
    }
    int[] w = new int[5];
    for (String[] r : rows) {
      for (int i = 0; i < 4; i++) {
        w[i] = Math.max(w[i], r[i].length());
      }
    }
    System.out.println();
    for (String[] r : rows) {
      System.out.printf(Locale.ROOT, "%-" + w[0] + "s  %-" + w[1] + "s  %" + w[2] + "s  %-" + w[3] + "s  %s%n",
          (Object[]) r);
    }
  }
}
