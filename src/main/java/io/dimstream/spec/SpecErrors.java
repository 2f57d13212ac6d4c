package io.dimstream.spec;

import java.nio.file.Path;
import java.util.Collection;

/** Builds every {@link SpecException}: what is wrong, where (file and field), and how to fix it. */
final class SpecErrors {
  private SpecErrors() {}

  static SpecException invalid(Path file, String field, String problem, String fix) {
    String where = file == null ? "dimension spec" : file.toString();
    return new SpecException(where + ": field '" + field + "': " + problem + ". Fix: " + fix);
  }

  static SpecException unknownColumn(Path file, String field, String column, Collection<String> declared) {
    return invalid(file, field, "column '" + column + "' is not declared",
        "declare it under 'columns' or use one of " + declared);
  }

}
