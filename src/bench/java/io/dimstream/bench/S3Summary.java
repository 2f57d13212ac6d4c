package io.dimstream.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The s3 benchmark's figures as one table for docs/performance.md: each step on the local disk and on S3 at 0 and
 * 20 ms added per request, with the requests S3 served at 20 ms by kind. Every cell is a figure of the results file.
 */
final class S3Summary {
  private static final String[] KINDS = {"PUT", "GET", "HEAD", "LIST", "DELETE"};
  private static final String[] STORES = {"local", "s3-0ms", "s3-20ms"};

  /** A step: its label and metric prefix; {@code medians}: timed as a median (and p90) over repeats. */
  private record Step(String label, String metric, boolean medians, boolean p90) {}

  private static final List<Step> STEPS = List.of(
      new Step("open the table", "open_table", false, false),
      new Step("position-index rebuild", "position_index_rebuild", false, false),
      new Step("commit of 100 changes, median / p90", "commit_100", true, true),
      new Step("commit of 10,000 changes, median / p90", "commit_10000", true, true),
      new Step("as-of lookup of one key among the commits' small files, median", "as_of_lookup_one_key", true, false),
      new Step("`optimize`", "optimize", false, false),
      new Step("as-of lookup of one key after `optimize`, median", "as_of_lookup_one_key_optimized", true, false),
      new Step("full as-of scan", "as_of_full_scan", false, false));

  private S3Summary() {}

  /** The table, or null when {@code figures} has no s3 figures. */
  static String render(List<Report.Figure> figures) {
    Map<String, Report.Figure> byKey = new LinkedHashMap<>();
    for (Report.Figure f : figures) {
      if (f.bench().equals("s3")) {
        byKey.put(f.metric() + "@" + f.params().getOrDefault("store", ""), f);
      }
    }
    if (byKey.isEmpty()) {
      return null;
    }
    Report.Figure any = byKey.values().iterator().next();
    StringBuilder s = new StringBuilder();
    s.append("The s3 benchmark on a table of ").append(any.params().getOrDefault("table_keys", "?"))
        .append(" keys (local disk beside s3proxy with 0 and 20 ms added per request):\n\n");
    s.append("| step | local disk | S3, +0 ms | S3, +20 ms per request | requests on S3 (+20 ms) |\n");
    s.append("|---|---|---|---|---|\n");
    for (Step step : STEPS) {
      s.append("| ").append(step.label);
      for (String store : STORES) {
        s.append(" | ").append(time(byKey, step, store));
      }
      s.append(" | ").append(requests(byKey, step)).append(" |\n");
    }
    List<String> tails = new ArrayList<>();
    for (String metric : List.of("as_of_lookup_one_key_tail_cache", "as_of_lookup_one_key_optimized_tail_cache")) {
      Report.Figure f = byKey.get(metric + "@s3-20ms");
      if (f != null) {
        tails.add(f.value() + " " + f.unit() + " (" + metric.replace("_tail_cache", "") + ")");
      }
    }
    if (!tails.isEmpty()) {
      s.append("\nData-file tails cached by the process after the lookups: ").append(String.join(", ", tails))
          .append(".\n");
    }
    return s.append("\n").toString();
  }

  private static String time(Map<String, Report.Figure> byKey, Step step, String store) {
    if (!step.medians) {
      Report.Figure f = byKey.get(step.metric + "_ms@" + store);
      return f == null ? "" : f.value() + " ms";
    }
    Report.Figure median = byKey.get(step.metric + "_latency_median@" + store);
    Report.Figure p90 = byKey.get(step.metric + "_latency_p90@" + store);
    if (median == null) {
      return "";
    }
    return median.value() + (step.p90 && p90 != null ? " / " + p90.value() : "") + " ms";
  }

  private static String requests(Map<String, Report.Figure> byKey, Step step) {
    List<String> out = new ArrayList<>();
    for (String kind : KINDS) {
      Report.Figure f = byKey.get(step.metric + "_requests_" + kind + (step.medians ? "_median" : "") + "@s3-20ms");
      if (f != null && f.number() > 0) {
        out.add(f.value() + " " + kind);
      }
    }
    Report.Figure sequential = byKey.get(step.metric + "_sequential_requests_median@s3-20ms");
    if (sequential != null) {
      out.add(sequential.value() + " sequential");
    }
    return out.isEmpty() ? "none" : String.join(", ", out);
  }
}
