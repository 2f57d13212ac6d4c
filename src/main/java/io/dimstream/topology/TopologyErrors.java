package io.dimstream.topology;

import io.dimstream.config.DimensionSpec;

/** Builds every {@link TopologyException}. */
final class TopologyErrors {
  private TopologyErrors() {}

  static TopologyException unsupportedVersionsFormat(DimensionSpec spec) {
    String where = spec.source() == null ? "dimension '" + spec.name() + "'" : spec.source().toString();
    return new TopologyException(where + ": field 'versions_format': " + spec.outputFormat().name().toLowerCase(
        java.util.Locale.ROOT) + " version records are not produced by this version of dimstream; only JSON is "
        + "(see the README, section Record formats). Fix: remove 'versions_format' or set it to json");
  }
}
