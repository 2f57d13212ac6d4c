package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.spec.DimensionSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code dimstream run}'s command-line overrides reach the service for a spec without a database source too:
 * instances of one spec on one host must each get their own data directory (their Kafka Streams state is locked
 * per directory), or all but one fail to start.
 */
class RunOptionsTest {
  @TempDir
  Path dir;

  @Test
  void shouldRunWithTheDataDirectoryTablePathAndPortGivenOnTheCommandLine() throws Exception {
    Path config = dir.resolve("customers.yaml");
    Files.writeString(config, ReplayCommandTest.SPEC_YAML);
    Path instance = dir.resolve("instance-1");
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs("--config", config.toString(), "--data-dir", instance.toString(),
        "--http-port", "0");

    DimensionSpec spec = run.spec().spec();

    assertThat(spec.service().dataDir()).isEqualTo(instance);
    assertThat(spec.service().tablePath().localPath()).isEqualTo(instance.resolve("tables").resolve("customers"));
    assertThat(spec.service().httpPort()).isZero();
  }

  @Test
  void shouldTakeTheTableGivenOnTheCommandLineOverTheSpecs() throws Exception {
    Path config = dir.resolve("customers.yaml");
    Files.writeString(config, ReplayCommandTest.SPEC_YAML + "service:\n  table_path: " + dir.resolve("spec-table")
        + "\n");
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs("--config", config.toString(), "--table", dir.resolve("other").toString());

    assertThat(run.spec().spec().service().tablePath().localPath()).isEqualTo(dir.resolve("other"));
  }
}
