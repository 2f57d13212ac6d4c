package io.dimstream.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints rows of cells as an aligned text table, CSV, or pre-rendered JSON lines. The table format buffers the first
 * {@value #SAMPLE} rows to size the columns, then streams (longer cells are cut with an ellipsis), so memory stays
 * bounded whatever the number of rows.
 */
final class RowPrinter implements AutoCloseable {
  static final int SAMPLE = 500;
  private static final int MAX_WIDTH = 60;

  private final PrintWriter out;
  private final OutputFormat format;
  private final List<String> header;
  private final List<List<String>> sample = new ArrayList<>();
  private int[] widths;
  private long rows;

  RowPrinter(PrintWriter out, OutputFormat format, List<String> header) {
    this.out = out;
    this.format = format;
    this.header = header;
    if (format == OutputFormat.CSV) {
      out.println(csv(header));
    }
  }

  /** Prints one row; {@code json} is used by the JSON format, {@code cells} by the others. */
  void row(String json, List<String> cells) {
    rows++;
    switch (format) {
      case JSON -> out.println(json);
      case CSV -> out.println(csv(cells));
      case TABLE -> {
        if (widths == null) {
          sample.add(cells);
          if (sample.size() >= SAMPLE) {
            flushSample();
          }
        } else {
          printCells(cells);
        }
      }
    }
  }

  long rows() {
    return rows;
  }

  @Override
  public void close() {
    if (format == OutputFormat.TABLE && widths == null) {
      flushSample();
    }
    out.flush();
  }

  private void flushSample() {
    widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
    }
    for (List<String> r : sample) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.min(MAX_WIDTH, Math.max(widths[i], r.get(i).length()));
      }
    }
    printCells(header);
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < widths.length; i++) {
      rule.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
    }
    out.println(rule);
    sample.forEach(this::printCells);
    sample.clear();
  }

  private void printCells(List<String> cells) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < widths.length; i++) {
      String c = cells.get(i);
      if (c.length() > widths[i]) {
        c = c.substring(0, widths[i] - 1) + "…";
      }
      b.append(i == 0 ? "" : " | ").append(c);
      if (i < widths.length - 1) {
        b.append(" ".repeat(widths[i] - c.length()));
      }
    }
    out.println(b);
  }

  static String csv(List<String> cells) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      if (i > 0) {
        b.append(',');
      }
      if (c.contains(",") || c.contains("\"") || c.contains("\n") || c.contains("\r")) {
        b.append('"').append(c.replace("\"", "\"\"")).append('"');
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** The output formats of the query commands. */
  enum OutputFormat {
    TABLE, JSON, CSV;

    /** Reads table, json or csv in any case; anything else is a usage error (exit code 2). */
    static final class Converter implements picocli.CommandLine.ITypeConverter<OutputFormat> {
      @Override
      public OutputFormat convert(String value) {
        try {
          return valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new picocli.CommandLine.TypeConversionException("expected table, json or csv, got '" + value + "'");
        }
      }
    }

    /** {@code table} when stdout is a terminal, else {@code json}. */
    static OutputFormat orDefault(OutputFormat chosen) {
      if (chosen != null) {
        return chosen;
      }
      return System.console() != null ? TABLE : JSON;
    }
  }
}
