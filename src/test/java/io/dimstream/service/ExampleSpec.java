package io.dimstream.service;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The example customers spec ({@code examples/customers.yaml}) as the service tests run it: renamed so each test has
 * its own topics, its data and table under the test's directory, compaction every second, a free HTTP port.
 */
public final class ExampleSpec {
  private ExampleSpec() {}

  /** The spec named {@code name} under {@code dir}, with extra {@code service:} lines (each indented two spaces). */
  public static DimensionSpec customers(Path dir, String name, String serviceLines) throws IOException {
    return customers(dir, name, serviceLines, "");
  }

  /** The same, with extra top-level lines too (for example {@code topics: {...}}). */
  public static DimensionSpec customers(Path dir, String name, String serviceLines, String topLevelLines)
      throws IOException {
    return DimensionSpecLoader.load(write(dir, name, name, dir.resolve("data"), serviceLines, topLevelLines));
  }

  /**
   * Writes the spec to {@code <dir>/<file>.yaml}, with its data directory at {@code dataDir} (instances of one
   * dimension differ only there), and returns the file.
   */
  public static Path write(Path dir, String name, String file, Path dataDir, String serviceLines,
      String topLevelLines) throws IOException {
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        .replaceFirst("(?m)^name: customers", "name: " + name)
        + "\n" + topLevelLines
        + "service:\n  data_dir: " + dataDir + "\n  table_path: " + dir.resolve("table")
        + "\n  compaction: {interval: 1s}\n  http: {port: 0}\n" + serviceLines;
    return Files.writeString(dir.resolve(file + ".yaml"), yaml);
  }
}
