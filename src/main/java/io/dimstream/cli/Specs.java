package io.dimstream.cli;

import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.expr.SpecExpressions;
import io.dimstream.source.SourcedSpecs;
import io.dimstream.spec.DimensionSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  /** Whether {@code file} is an enrichment spec (it names a dimension and facts) rather than a dimension spec. */
  static boolean isEnrichment(Path file) {
    try {
      var root = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
          .readTree(Files.readString(file));
      return root != null && root.has("facts") && root.has("dimension");
    } catch (java.io.IOException | RuntimeException e) {
      return false; // the dimension loader words the error
    }
  }

  /**
   * Loads enrichment specs for a process of several dimensions, by the name of the dimension each joins with; one
   * that joins with none of {@code dimensions} is refused, naming those it could join.
   */
  static Map<String, List<EnrichmentSpec>> loadEnrichments(List<Path> files, List<DimensionSpec> dimensions) {
    Map<String, List<EnrichmentSpec>> out = new LinkedHashMap<>();
    List<String> names = dimensions.stream().map(DimensionSpec::name).toList();
    for (Path f : files) {
      if (!Files.isRegularFile(f)) {
        throw CliErrors.missingSpec(f);
      }
      EnrichmentSpec e = EnrichmentSpecLoader.load(f);
      String dimension = e.dimension().name();
      if (!names.contains(dimension)) {
        throw new CliErrors.UsageError(f + " enriches facts with the dimension '" + dimension + "', which is not among"
            + " the dimensions this command runs " + names + ". Fix: add " + e.dimension().source() + " to --config,"
            + " or point the enrichment's 'dimension:' at one of their specs.");
      }
      out.computeIfAbsent(dimension, d -> new ArrayList<>()).add(e);
    }
    return out;
  }

  /** Loads enrichment specs and checks that each joins with {@code dimension}, the one the command runs. */
  static List<EnrichmentSpec> loadEnrichments(List<Path> files, DimensionSpec dimension) {
    List<EnrichmentSpec> out = new ArrayList<>();
    for (Path f : files) {
      if (!Files.isRegularFile(f)) {
        throw CliErrors.missingSpec(f);
      }
      EnrichmentSpec e = EnrichmentSpecLoader.load(f);
      if (!e.dimension().name().equals(dimension.name())) {
        throw new CliErrors.UsageError(f + " enriches facts with the dimension '" + e.dimension().name() + "', but "
            + "this command runs '" + dimension.name() + "'. Fix: give it to the command of its own dimension, or "
            + "point its 'dimension:' at " + dimension.source());
      }
      out.add(e);
    }
    return out;
  }
}
