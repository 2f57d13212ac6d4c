package io.dimstream.config;

/** Topic names of one dimension. Defaults: {@code <name>.changes}, {@code <name>.versions}, {@code <name>.dlq}. */
public record Topics(String changes, String versions, String dlq) {
  public static Topics defaults(String dimension) {
    return new Topics(dimension + ".changes", dimension + ".versions", dimension + ".dlq");
  }
}
