package io.dimstream.bench;

import java.util.Locale;

/** A small SVG writer: rectangles, lines, polylines, circles and text, nothing else the report's charts need. */
final class Svg {
  private final StringBuilder out = new StringBuilder();
  private final int width;
  private final int height;

  Svg(int width, int height) {
    this.width = width;
    this.height = height;
  }

  Svg rect(double x, double y, double w, double h, String fill) {
    out.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
        x, y, Math.max(0, w), Math.max(0, h), fill));
    return this;
  }

  Svg line(double x1, double y1, double x2, double y2, String stroke, String dash) {
    out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>%n",
        x1, y1, x2, y2, stroke, dash == null ? "" : " stroke-dasharray=\"" + dash + "\""));
    return this;
  }

  Svg polyline(double[] xs, double[] ys, String stroke) {
    StringBuilder points = new StringBuilder();
    for (int i = 0; i < xs.length; i++) {
      points.append(String.format(Locale.ROOT, "%.1f,%.1f ", xs[i], ys[i]));
    }
    out.append("<polyline fill=\"none\" stroke=\"").append(stroke).append("\" stroke-width=\"2\" points=\"")
        .append(points.toString().trim()).append("\"/>\n");
    return this;
  }

  Svg circle(double x, double y, double r, String fill) {
    out.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>%n", x, y, r, fill));
    return this;
  }

  /** Text at (x, y); anchor is start, middle or end. */
  Svg text(double x, double y, String text, int size, String anchor) {
    out.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\">%s</text>%n",
        x, y, size, anchor, escape(text)));
    return this;
  }

  String render() {
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + height + "\" viewBox=\"0 0 "
        + width + " " + height + "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        + out + "</svg>\n";
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
