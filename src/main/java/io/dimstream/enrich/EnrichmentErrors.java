package io.dimstream.enrich;

import io.dimstream.spec.SpecException;
import java.nio.file.Path;

/** Builds every error of an enrichment spec: what is wrong, where (file and field), and how to fix it. */
final class EnrichmentErrors {
  private EnrichmentErrors() {}

  static SpecException invalid(Path file, String field, String problem, String fix) {
    String where = file == null ? "enrichment spec" : file.toString();
    return new SpecException(where + ": field '" + field + "': " + problem + ". Fix: " + fix);
  }

  static SpecException dimensionUnusable(Path file, Path dimensionFile, String why) {
    return invalid(file, "dimension", "the dimension spec " + dimensionFile + " cannot be used: " + why,
        "give the path of the dimension's spec file, relative to this file, and fix the error it reports");
  }
}
