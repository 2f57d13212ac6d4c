package io.dimstream.bench;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The example customers dimension, renamed and pointed at a work directory, as every benchmark uses it. */
final class BenchSpecs {
  static final Path EXAMPLE = Path.of("examples/customers.yaml");

  private BenchSpecs() {}

  /** The example spec as it is (no service settings). */
  static DimensionSpec customers() {
    return DimensionSpecLoader.load(EXAMPLE);
  }

  /**
   * Writes {@code <work>/<name>.yaml}: the example spec named {@code name}, with its data directory, table and
   * the given extra YAML under {@code service:}, and returns the file.
   */
  static Path write(Path work, String name, String bootstrap, String serviceExtra) throws IOException {
    Files.createDirectories(work);
    StringBuilder yaml = new StringBuilder(Files.readString(EXAMPLE).replaceFirst("(?m)^name: customers",
        "name: " + name));
    yaml.append("\nservice:\n  data_dir: ").append(work.resolve(name + "-data"))
        .append("\n  table_path: ").append(work.resolve(name + "-table"))
        .append("\n  http: {port: 0}\n");
    if (bootstrap != null) {
      yaml.append("  kafka: {bootstrap.servers: \"").append(bootstrap).append("\"");
      String commit = System.getProperty(TopologyBench.COMMIT_INTERVAL_PROPERTY);
      if (commit != null) {
        yaml.append(", commit.interval.ms: ").append(Long.parseLong(commit));
      }
      TopologyBench.extraKafka().forEach((k, v) -> yaml.append(", ").append(k).append(": \"").append(v).append("\""));
      yaml.append("}\n");
    }
    yaml.append(serviceExtra);
    Path file = work.resolve(name + ".yaml");
    Files.writeString(file, yaml);
    return file;
  }
}
