package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.storage.AzuriteServer;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line and the service on a table in Azure Blob Storage (Azurite on 127.0.0.1): {@code backfill} writes
 * it (the connection string from the spec's {@code service.storage.azure}), {@code query} reads it and
 * {@code table optimize|vacuum|verify} maintain it (the connection string from {@code AZURE_STORAGE_CONNECTION_STRING},
 * here as the system property of that name), {@code run} keeps it up to date from Kafka; the rows equal the
 * reference fold of the input.
 */
class AzureCommandsIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  static AzuriteServer azurite;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    azurite = AzuriteServer.start();
    azurite.createContainer("dims");
    System.setProperty("AZURE_STORAGE_CONNECTION_STRING", azurite.connectionString());
  }

  @AfterAll
  static void stop() {
    System.clearProperty("AZURE_STORAGE_CONNECTION_STRING");
    azurite.close();
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private static List<Version> rows(String container, String prefix) {
    DeltaTable t = DeltaTable.open(azurite.store(container, prefix));
    try (Stream<Version> rows = t.latest().scan()) {
      return EndToEndIT.sorted(rows.toList());
    }
  }

  @Test
  void shouldBackfillQueryAndMaintainATableInAzureEqualToTheReferenceFold() throws Exception {
    Path config = dir.resolve("customers.yaml");
    Files.writeString(config, ReplayCommandTest.SPEC_YAML + "service:\n  storage: {azure: {connection_string: \""
        + azurite.connectionString() + "\"}}\n");
    DimensionSpec spec = DimensionSpecLoader.load(config);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 5L).keys(300).events(3_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Path input = dir.resolve("changes.jsonl");
    Files.write(input, stream.jsonLines());
    String table = "az://dims/warehouse/customers";

    Run backfill = run("backfill", "--config", config.toString(), "--input", input.toString(), "--table", table);
    assertThat(backfill.code()).as(backfill.err()).isZero();
    assertThat(Path.of("az:")).as("nothing was written to a local directory").doesNotExist();
    assertThat(backfill.out() + backfill.err()).as("no secret printed").doesNotContain(AzuriteServer.KEY);

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    assertThat(rows("dims", "warehouse/customers")).containsExactlyElementsOf(expected);

    Version sample = expected.get(expected.size() / 2);
    Object key = sample.key().values().get(0);
    Run history = run("query", "history", "--table", table, "--key", String.valueOf(key), "--format", "json");
    assertThat(history.code()).as(history.err()).isZero();
    long versionsOfKey = expected.stream().filter(v -> v.key().equals(sample.key())).count();
    assertThat(history.out().lines().filter(l -> !l.isBlank())).hasSize((int) versionsOfKey);

    Run optimize = run("table", "optimize", "--table", table);
    assertThat(optimize.code()).as(optimize.err()).isZero();
    Run vacuum = run("table", "vacuum", "--table", table, "--retain", "0s");
    assertThat(vacuum.code()).as(vacuum.err()).isZero();
    Run verify = run("table", "verify", "--table", "abfss://dims@" + AzuriteServer.ACCOUNT
        + ".dfs.core.windows.net/warehouse/customers");
    assertThat(verify.code()).as(verify.out() + verify.err()).isZero();

    assertThat(rows("dims", "warehouse/customers")).as("maintenance changed no row").containsExactlyElementsOf(expected);
  }

  @Test
  void shouldKeepATableInAzureUpToDateFromTheChangeStream() throws Exception {
    String name = "customers_azure";
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        .replaceFirst("(?m)^name: customers", "name: " + name)
        + "\nservice:\n  data_dir: " + dir.resolve("data") + "\n  table_path: az://dims/streamed/" + name
        + "\n  compaction: {interval: 1s}\n  http: {port: 0}\n";
    DimensionSpec spec = DimensionSpecLoader.load(Files.writeString(dir.resolve(name + ".yaml"), yaml));
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 20_261_203L).keys(500).events(4_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Path input = Files.write(dir.resolve("changes.jsonl"), stream.jsonLines());

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, input, service.kafka())).isEqualTo(4_000);
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + name)
          && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table in Azure caught up with the change stream").isTrue();
    }
    assertThat(rows("dims", "streamed/" + name)).containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
  }
}
