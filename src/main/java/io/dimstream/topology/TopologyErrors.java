package io.dimstream.topology;

import io.dimstream.config.DimensionSpec;

/** Builds every {@link TopologyException}. */
final class TopologyErrors {
  private TopologyErrors() {}

  static TopologyException unusableVersionsSchema(DimensionSpec spec, String why) {
    String where = spec.source() == null ? "dimension '" + spec.name() + "'" : spec.source().toString();
    return new TopologyException(where + ": field 'versions_format': avro version records cannot be built for this "
        + "dimension: " + why + ". Fix: rename the column (Avro names are letters, digits and '_', not starting with "
        + "a digit, and 'change' is taken by the change field), or set versions_format: json");
  }
}
