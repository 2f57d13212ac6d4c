package io.dimstream.cli;

import io.dimstream.config.DimensionSpec;
import io.dimstream.config.DimensionSpecLoader;
import io.dimstream.expr.SpecExpressions;
import java.nio.file.Files;
import java.nio.file.Path;

/** Loads the spec a command was given, with a clear message when the file is missing. */
final class Specs {
  private Specs() {}

  static DimensionSpec load(Path config) {
    if (!Files.isRegularFile(config)) {
      throw CliErrors.missingSpec(config);
    }
    DimensionSpec spec = DimensionSpecLoader.load(config);
    SpecExpressions.compile(spec); // every command refuses a spec whose expressions do not check, before it starts
    return spec;
  }
}
