package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.service.ExampleSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.StateMarkers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What `run` refuses to take over, with the fix, leaving the table as it was. */
class TakeoverRefusalIT {
  @TempDir
  Path dir;

  @Test
  void shouldRefuseToTakeOverUnderAnotherLatenessHorizon() throws Exception {
    Path backfilled = ExampleSpec.write(dir, "customers_horizon", "backfill", dir.resolve("data"), "",
        "lateness_horizon: 30d\n");
    Path running = ExampleSpec.write(dir, "customers_horizon", "run", dir.resolve("data"), "",
        "lateness_horizon: 7d\n");
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(new StringWriter(), true));
    assertThat(cl.execute("backfill", "--config", backfilled.toString(), "--input",
        "examples/customers-changes.jsonl", "--table", dir.resolve("table").toString())).isZero();
    long version = DeltaTable.open(dir.resolve("table")).latest().version();

    Path log = Path.of("target", "TakeoverRefusalIT.log");
    Files.deleteIfExists(log);
    try (ServiceProcess service = ServiceProcess.start(log, "--config", running.toString())) {
      await("the service to stop").atMost(Duration.ofSeconds(90)).until(() -> !service.isAlive());
      assertThat(service.stop()).as("exit code; see " + log).isNotZero();
    }
    assertThat(Files.readString(log)).contains("was written with lateness_horizon 30d, but this spec of "
        + "customers_horizon has 7d").contains("Fix: set lateness_horizon to 30d");
    DeltaTable table = DeltaTable.open(dir.resolve("table"));
    assertThat(table.latest().txnVersions().keySet()).as("the table names no state")
        .noneMatch(app -> app.startsWith(StateMarkers.statePrefix("customers_horizon")));
    assertThat(table.latest().rowCount()).isEqualTo(DeltaTable.open(dir.resolve("table")).snapshotAt(version)
        .rowCount());
  }
}
