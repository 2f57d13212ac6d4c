package io.dimstream.cli;

import io.dimstream.config.DimensionSpec;
import io.dimstream.config.DimensionSpecLoader;
import java.nio.file.Files;
import java.nio.file.Path;

/** Loads the spec a command was given, with a clear message when the file is missing. */
final class Specs {
  private Specs() {}

  static DimensionSpec load(Path config) {
    if (!Files.isRegularFile(config)) {
      throw CliErrors.missingSpec(config);
    }
    return DimensionSpecLoader.load(config);
  }
}
