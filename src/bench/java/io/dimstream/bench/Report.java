package io.dimstream.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code bench/run --report}: rewrites the results section of docs/performance.md (between its begin and end
 * markers) and its SVG figures from one or more results files, and keeps the lines it shows beside the figures, so
 * every number the section shows is one a run printed. Given several runs, each benchmark's figures come from the
 * last run that has it. Usage: {@code Report RESULTS.jsonl [MORE.jsonl ...] docs/performance.md FIGURE_DIR}.
 */
public final class Report {
  static final String BEGIN = "<!-- bench-report:begin -->";
  static final String END = "<!-- bench-report:end -->";
  private static final Pattern PERCENTILE = Pattern.compile("(.+)_(p50|p95|p99|median|max)(_ms)?");
  /** The parameters that tell two rows of one metric apart in a label, in this order. */
  private static final List<String> LABEL_PARAMS = List.of("app", "run", "keys", "changes", "versions");
  /** Per-thread CPU lines: hundreds per run, for profiling, too many for the page's table. */
  private static final String THREAD_CPU = "cpu_us_per_event_thread_group";

  private Report() {}

  /** One line of a results file; {@code value} is the number's text exactly as the benchmark printed it. */
  record Figure(String bench, String metric, String value, String unit, Map<String, String> params) {
    double number() {
      return Double.parseDouble(value);
    }

    String label() {
      String extra = LABEL_PARAMS.stream().filter(params::containsKey).map(k -> k + "=" + params.get(k))
          .collect(Collectors.joining(" "));
      return bench + " " + metric + (extra.isEmpty() ? "" : " (" + extra + ")");
    }
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 3) {
      System.err.println("usage: Report RESULTS.jsonl [MORE-RESULTS.jsonl ...] docs/performance.md FIGURE_DIR");
      System.exit(2);
    }
    List<Run> runs = new ArrayList<>();
    for (int i = 0; i < args.length - 2; i++) {
      runs.addAll(Run.readAll(Path.of(args[i])));
    }
    Path doc = Path.of(args[args.length - 2]);
    Path dir = Path.of(args[args.length - 1]);
    List<Run> kept = newestPerBench(runs);
    List<Figure> figures = kept.stream().flatMap(r -> r.figures().stream()).toList();
    Files.createDirectories(dir);
    Files.write(dir.resolve("results.jsonl"), kept.stream().flatMap(r -> r.lines().stream()).toList());
    String rel = doc.toAbsolutePath().getParent().relativize(dir.toAbsolutePath()).toString();
    List<String> images = new ArrayList<>();
    chart(dir, "ratios.svg", RatioChart.render(figures), images, rel,
        "Each figure over its baseline or floor from the same run (1 = the baseline)");
    chart(dir, "latency.svg", LatencyChart.render(figures), images, rel, "Latency percentiles");
    chart(dir, "cost-vs-keys.svg", KeysChart.render(figures), images, rel, "Cost against the number of keys");
    String text = Files.readString(doc);
    int b = text.indexOf(BEGIN);
    int e = text.indexOf(END);
    if (b < 0 || e < b) {
      throw new IllegalStateException(doc + " has no section between " + BEGIN + " and " + END
          + "; add the two markers where the results belong");
    }
    String section = section(kept, rel + "/results.jsonl", images);
    Files.writeString(doc, text.substring(0, b + BEGIN.length()) + "\n" + section + text.substring(e));
    System.err.println("bench/run: wrote the results of " + runs.stream().map(r -> r.file().toString()).distinct()
        .collect(Collectors.joining(", ")) + " into " + doc + " and " + dir);
  }

  /**
   * Each benchmark's figures from the newest run (the last file given) that has it, so that a run of one benchmark
   * updates its figures without dropping the others'; runs left with no benchmark are dropped.
   */
  static List<Run> newestPerBench(List<Run> runs) {
    Map<String, Integer> owner = new LinkedHashMap<>();
    for (int i = 0; i < runs.size(); i++) {
      for (Figure f : runs.get(i).figures()) {
        if (!Run.isRunLine(f)) {
          owner.put(f.bench(), i);
        }
      }
    }
    List<Run> out = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      int run = i;
      Run kept = runs.get(i).only(bench -> owner.get(bench) == run);
      if (!kept.benches().isEmpty()) {
        out.add(kept);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("no benchmark figures in " + runs.stream().map(r -> r.file().toString())
          .collect(Collectors.joining(", ")));
    }
    return out;
  }

  /** One results file: the lines as printed and their figures, the machine lines first. */
  record Run(Path file, List<String> lines, List<Figure> figures) {
    /** The runs of a results file: a file bench/run wrote holds one; a kept report's file may hold several. */
    static List<Run> readAll(Path file) throws IOException {
      List<Run> runs = new ArrayList<>();
      List<String> lines = null;
      List<Figure> figures = null;
      ObjectMapper json = new ObjectMapper();
      for (String line : Files.readAllLines(file)) {
        if (!line.startsWith("{")) {
          continue;
        }
        Figure f = figure(json.readTree(line));
        if (f.bench().equals("machine") && f.metric().equals("cores")) {
          lines = new ArrayList<>();
          figures = new ArrayList<>();
          runs.add(new Run(file, lines, figures));
        } else if (lines == null) {
          throw new IllegalStateException(file + " does not begin with a machine line; give a file bench/run wrote");
        }
        lines.add(line);
        figures.add(f);
      }
      if (runs.isEmpty()) {
        throw new IllegalStateException(file + " has no machine line; give a file bench/run wrote");
      }
      return runs;
    }

    /** The machine's and the suite's lines describe the run, not one benchmark. */
    static boolean isRunLine(Figure f) {
      return f.bench().equals("machine") || f.bench().equals("suite");
    }

    Run only(java.util.function.Predicate<String> bench) {
      List<String> l = new ArrayList<>();
      List<Figure> f = new ArrayList<>();
      for (int i = 0; i < figures.size(); i++) {
        if (isRunLine(figures.get(i)) || bench.test(figures.get(i).bench())) {
          l.add(lines.get(i));
          f.add(figures.get(i));
        }
      }
      return new Run(file, l, f);
    }

    Set<String> benches() {
      return figures.stream().filter(f -> !isRunLine(f)).map(Figure::bench)
          .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    Figure machine() {
      return figures.stream().filter(f -> f.bench().equals("machine") && f.metric().equals("cores")).findFirst()
          .orElseThrow(() -> new IllegalStateException(file + " has no machine line; give a file bench/run wrote"));
    }

    String loadAfter() {
      return figures.stream().filter(f -> f.bench().equals("machine") && f.metric().equals("cores_after"))
          .findFirst().map(f -> f.params().getOrDefault("load_avg_1m", "?")).orElse(null);
    }
  }

  private static Figure figure(JsonNode n) {
    Map<String, String> params = new LinkedHashMap<>();
    n.path("params").fields().forEachRemaining(p -> params.put(p.getKey(), p.getValue().asText()));
    return new Figure(n.path("bench").asText(), n.path("metric").asText(), n.path("value").asText(),
        n.path("unit").asText(), params);
  }

  private static void chart(Path dir, String name, String svg, List<String> images, String rel, String alt)
      throws IOException {
    Path file = dir.resolve(name);
    if (svg == null) {
      Files.deleteIfExists(file);
      return;
    }
    Files.writeString(file, svg);
    images.add("![" + alt + "](" + rel + "/" + name + ")");
  }

  static String section(List<Run> runs, String source, List<String> images) {
    Map<String, String> m = runs.get(0).machine().params();
    StringBuilder s = new StringBuilder();
    s.append("<!-- written by `bench/run --report` from ").append(source).append("; edit the method above, not this -->\n\n");
    s.append("Machine: ").append(runs.get(0).machine().value()).append(" cores (").append(m.getOrDefault("cpu", "?"))
        .append("), ").append(m.getOrDefault("memory_mib", "?")).append(" MiB, ").append(m.getOrDefault("java", "?"))
        .append(". The figures: [").append(source).append("](").append(source).append(").\n\n");
    for (Run run : runs) {
      Map<String, String> r = run.machine().params();
      s.append(runs.size() > 1 ? "- " : "").append("Run of ").append(r.getOrDefault("date", "an unrecorded date"))
          .append(", commit `").append(r.getOrDefault("commit", "unknown")).append("`, `")
          .append(r.getOrDefault("mode", "?")).append("` mode, load average ").append(r.getOrDefault("load_avg_1m", "?"))
          .append(" before the run");
      String after = run.loadAfter();
      if (after != null) {
        s.append(" and ").append(after).append(" after it");
      }
      s.append(": ").append(String.join(", ", run.benches())).append(".\n");
    }
    s.append("\n");
    images.forEach(i -> s.append(i).append("\n\n"));
    s.append("Per-thread CPU figures (`").append(THREAD_CPU).append("`) are in the results file only.\n\n");
    String s3 = S3Summary.render(runs.stream().flatMap(r -> r.figures().stream()).toList());
    if (s3 != null) {
      s.append(s3);
    }
    s.append("| bench | metric | value | unit | params |\n|---|---|---:|---|---|\n");
    for (Figure f : runs.stream().flatMap(r -> r.figures().stream()).toList()) {
      if (Run.isRunLine(f) && !f.bench().equals("suite") || f.metric().equals(THREAD_CPU)) {
        continue;
      }
      String params = f.params().entrySet().stream().map(p -> p.getKey() + "=" + p.getValue())
          .collect(Collectors.joining(", "));
      if (params.length() > 120) {
        params = params.substring(0, 117) + "...";
      }
      s.append("| ").append(f.bench()).append(" | ").append(f.metric()).append(" | ").append(f.value()).append(" | ")
          .append(f.unit()).append(" | ").append(params.replace("|", "\\|")).append(" |\n");
    }
    return s.append("\n").toString();
  }

  private static final String[] COLOURS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
      "#e377c2", "#7f7f7f"};

  /** Every ratio the run printed (unit {@code x}): a figure divided by its baseline or floor from the same run. */
  static final class RatioChart {
    private RatioChart() {}

    static String render(List<Figure> figures) {
      List<Figure> ratios = figures.stream().filter(f -> f.unit().equals("x") && f.number() > 0).toList();
      if (ratios.isEmpty()) {
        return null;
      }
      int row = 20;
      int left = 470;
      int plot = 380;
      Svg svg = new Svg(left + plot + 60, 50 + row * ratios.size() + 20);
      double max = Math.max(1.0, ratios.stream().mapToDouble(Figure::number).max().orElse(1)) * 1.1;
      svg.text(10, 20, "Each figure over its baseline or floor, same run (1 = as fast / as much as the baseline)", 13,
          "start");
      for (int i = 0; i < ratios.size(); i++) {
        Figure f = ratios.get(i);
        double y = 40 + i * row;
        svg.text(left - 8, y + 13, f.label(), 11, "end");
        svg.rect(left, y + 3, plot * f.number() / max, row - 6, "#4c78a8");
        svg.text(left + plot * f.number() / max + 4, y + 13, f.value(), 11, "start");
      }
      double one = left + plot / max;
      svg.line(one, 32, one, 40 + row * ratios.size(), "#d62728", "4,3");
      svg.text(one, 30, "baseline = 1", 11, "middle");
      return svg.render();
    }
  }

  /** Percentiles of one measured latency, a row each, on a log scale of milliseconds. */
  static final class LatencyChart {
    private static final List<String> ORDER = List.of("p50", "median", "p95", "p99", "max");

    private LatencyChart() {}

    static String render(List<Figure> figures) {
      Map<String, Map<String, Figure>> rows = new LinkedHashMap<>();
      for (Figure f : figures) {
        Matcher m = PERCENTILE.matcher(f.metric());
        if (!m.matches() || !f.unit().equals("ms") || f.number() <= 0) {
          continue;
        }
        String label = new Figure(f.bench(), m.group(1), f.value(), f.unit(), f.params()).label();
        rows.computeIfAbsent(label, k -> new TreeMap<>()).put(m.group(2), f);
      }
      rows.values().removeIf(r -> r.size() < 2);
      if (rows.isEmpty()) {
        return null;
      }
      double lo = Math.floor(Math.log10(rows.values().stream().flatMap(r -> r.values().stream())
          .mapToDouble(Figure::number).min().orElse(1)));
      double hi = Math.ceil(Math.log10(rows.values().stream().flatMap(r -> r.values().stream())
          .mapToDouble(Figure::number).max().orElse(10)));
      if (hi <= lo) {
        hi = lo + 1;
      }
      int row = 20;
      int left = 470;
      int plot = 380;
      Svg svg = new Svg(left + plot + 30, 70 + row * rows.size() + 30);
      svg.text(10, 20, "Latency percentiles (ms, log scale)", 13, "start");
      double legendX = left;
      for (int i = 0; i < ORDER.size(); i++) {
        svg.circle(legendX + 5, 36, 5, COLOURS[i]);
        svg.text(legendX + 14, 40, ORDER.get(i), 11, "start");
        legendX += 60;
      }
      double top = 50;
      double bottom = top + row * rows.size();
      for (double d = lo; d <= hi; d++) {
        double x = left + plot * (d - lo) / (hi - lo);
        svg.line(x, top, x, bottom, "#dddddd", null);
        svg.text(x, bottom + 14, tick(Math.pow(10, d)), 10, "middle");
      }
      int i = 0;
      for (Map.Entry<String, Map<String, Figure>> r : rows.entrySet()) {
        double y = top + i++ * row + row / 2.0;
        svg.text(left - 8, y + 4, r.getKey(), 11, "end");
        for (Figure f : r.getValue().values()) {
          String p = PERCENTILE.matcher(f.metric()).replaceFirst("$2");
          double x = left + plot * (Math.log10(f.number()) - lo) / (hi - lo);
          svg.circle(x, y, 4.5, COLOURS[ORDER.indexOf(p)]);
        }
      }
      return svg.render();
    }
  }

  /** Every metric measured at two or more numbers of keys, one panel each, keys on a log scale. */
  static final class KeysChart {
    private KeysChart() {}

    static String render(List<Figure> figures) {
      Map<String, List<Figure>> byMetric = new LinkedHashMap<>();
      for (Figure f : figures) {
        if (isNumber(keys(f)) && !f.unit().equals("flag")) {
          byMetric.computeIfAbsent(f.bench() + " " + f.metric() + " (" + f.unit() + ")", k -> new ArrayList<>()).add(f);
        }
      }
      Map<String, Map<String, TreeMap<Double, Double>>> panels = new LinkedHashMap<>();
      byMetric.forEach((title, list) -> {
        Map<String, TreeMap<Double, Double>> series = series(list);
        series.values().removeIf(points -> points.size() < 2);
        if (!series.isEmpty()) {
          panels.put(title, series);
        }
      });
      if (panels.isEmpty()) {
        return null;
      }
      int pw = 430;
      int ph = 230;
      int cols = 2;
      int rowsOfPanels = (panels.size() + cols - 1) / cols;
      Svg svg = new Svg(cols * pw + 20, rowsOfPanels * ph + 40);
      svg.text(10, 20, "Cost against the number of keys (keys on a log scale)", 13, "start");
      int n = 0;
      for (Map.Entry<String, Map<String, TreeMap<Double, Double>>> panel : panels.entrySet()) {
        panel(svg, 10 + (n % cols) * pw, 30 + (n / cols) * ph, pw - 20, ph - 20, panel.getKey(), panel.getValue());
        n++;
      }
      return svg.render();
    }

    /** The number of keys a figure was measured at: {@code keys}, or {@code table_keys} for a table of that size. */
    private static String keys(Figure f) {
      return f.params().getOrDefault("keys", f.params().get("table_keys"));
    }

    /**
     * Points per series: the lines of a metric differ by keys and, within one number of keys, by named settings
     * (text params such as the scenario; numeric params are measurements or sizes that follow the keys).
     */
    private static Map<String, TreeMap<Double, Double>> series(List<Figure> list) {
      Set<String> varying = new LinkedHashSet<>();
      Map<String, List<Figure>> sameKeys = list.stream().collect(Collectors.groupingBy(KeysChart::keys,
          LinkedHashMap::new, Collectors.toList()));
      for (List<Figure> group : sameKeys.values()) {
        for (Figure a : group) {
          for (Figure b : group) {
            a.params().forEach((k, v) -> {
              if (!k.equals("keys") && !k.equals("table_keys") && !isNumber(v) && !v.equals(b.params().get(k))) {
                varying.add(k);
              }
            });
          }
        }
      }
      Map<String, TreeMap<Double, Double>> out = new LinkedHashMap<>();
      for (Figure f : list) {
        String name = varying.stream().map(k -> k + "=" + f.params().getOrDefault(k, "-"))
            .collect(Collectors.joining(" "));
        out.computeIfAbsent(name, k -> new TreeMap<>()).put(Double.parseDouble(keys(f)), f.number());
      }
      return out;
    }

    private static void panel(Svg svg, double x0, double y0, double w, double h, String title,
        Map<String, TreeMap<Double, Double>> series) {
      double left = x0 + 50;
      double top = y0 + 20;
      double pw = w - 60;
      double ph = h - 60 - 12 * Math.min(series.size(), 4);
      svg.text(x0, y0 + 10, title, 11, "start");
      double minK = series.values().stream().mapToDouble(TreeMap::firstKey).min().orElse(1);
      double maxK = series.values().stream().mapToDouble(TreeMap::lastKey).max().orElse(10);
      double lo = Math.floor(Math.log10(minK));
      double hi = Math.max(lo + 1, Math.ceil(Math.log10(maxK)));
      double maxV = series.values().stream().flatMap(s -> s.values().stream()).mapToDouble(Double::doubleValue)
          .max().orElse(1) * 1.1;
      svg.line(left, top + ph, left + pw, top + ph, "#333333", null);
      svg.line(left, top, left, top + ph, "#333333", null);
      for (double d = lo; d <= hi; d++) {
        double x = left + pw * (d - lo) / (hi - lo);
        svg.text(x, top + ph + 13, tick(Math.pow(10, d)), 10, "middle");
      }
      svg.text(left - 4, top + 8, tick(maxV), 10, "end");
      svg.text(left - 4, top + ph, "0", 10, "end");
      int c = 0;
      double legendY = top + ph + 28;
      for (Map.Entry<String, TreeMap<Double, Double>> s : series.entrySet()) {
        String colour = COLOURS[c % COLOURS.length];
        double[] xs = new double[s.getValue().size()];
        double[] ys = new double[xs.length];
        int i = 0;
        for (Map.Entry<Double, Double> p : s.getValue().entrySet()) {
          xs[i] = left + pw * (Math.log10(p.getKey()) - lo) / (hi - lo);
          ys[i] = top + ph - ph * p.getValue() / maxV;
          svg.circle(xs[i], ys[i], 3, colour);
          i++;
        }
        svg.polyline(xs, ys, colour);
        if (c < 4) {
          svg.rect(left, legendY - 8, 10, 8, colour);
          svg.text(left + 14, legendY, s.getKey().isEmpty() ? "measured" : s.getKey(), 10, "start");
          legendY += 12;
        }
        c++;
      }
    }

    private static boolean isNumber(String s) {
      return s != null && s.matches("-?[0-9]+(\\.[0-9]+)?");
    }
  }

  /** 1, 10, 100, 1k, 10k, 100k, 1M ... and plain numbers below a thousand. */
  static String tick(double v) {
    if (v >= 1e6) {
      return trim(v / 1e6) + "M";
    }
    if (v >= 1e3) {
      return trim(v / 1e3) + "k";
    }
    return trim(v);
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.format(java.util.Locale.ROOT, "%.2g", v);
  }
}
