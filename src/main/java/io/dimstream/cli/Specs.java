package io.dimstream.cli;

import io.dimstream.config.DimensionSpec;
import io.dimstream.expr.SpecExpressions;
import io.dimstream.source.SourcedSpecs;
import java.nio.file.Files;
import java.nio.file.Path;

/** Loads the spec a command was given, with a clear message when the file is missing. */
final class Specs {
  private Specs() {}

  /** The spec and its database source, if it has one; every command refuses a spec that does not check. */
  static SourcedSpecs.Sourced loadSourced(Path config) {
    return loadSourced(config, spec -> spec);
  }

  /** As {@link #loadSourced(Path)}, with the command line's overrides of the service settings applied. */
  static SourcedSpecs.Sourced loadSourced(Path config, java.util.function.UnaryOperator<DimensionSpec> overrides) {
    if (!Files.isRegularFile(config)) {
      throw CliErrors.missingSpec(config);
    }
    SourcedSpecs.Sourced sourced = SourcedSpecs.load(config, overrides);
    SpecExpressions.compile(sourced.spec());
    return sourced;
  }

  static DimensionSpec load(Path config) {
    return loadSourced(config).spec();
  }
}
