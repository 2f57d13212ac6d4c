package io.dimstream.cli;

import static io.dimstream.trino.TrinoChecks.location;
import static io.dimstream.trino.TrinoChecks.register;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionJson;
import io.dimstream.compactor.Compactor;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.S3ProxyServer;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.trino.TrinoChecks;
import io.dimstream.trino.TrinoServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tables {@code run} writes, read by a real Trino 476 over JDBC and compared with the reference fold: two
 * compactors committing many times with deletion vectors, background compaction and checkpoints on a local disk; and
 * on S3 (s3proxy on 127.0.0.1, read by Trino's native S3 file system), a {@code backfill} and a {@code run} followed
 * by {@code table optimize}.
 */
class TrinoStreamIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldReadInTrinoWhatCompactorsCommittedWithDeletionVectorsCompactionAndCheckpoints() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_trino_run", "  partitions: 2\n",
        "output: {table_properties: {delta.checkpointInterval: \"4\"}}\n");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 78L).keys(200).events(1_600).sameSequence(0)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Path table = spec.service().tablePath().localPath();

    runService(spec, stream.jsonLines(), true);

    List<CommitSummary> history = DeltaTable.open(table).history();
    assertThat(history.stream().filter(c -> c.operation().equals("MERGE")).count()).as("many commits")
        .isGreaterThanOrEqualTo(6);
    assertThat(history).as("background compaction").anyMatch(c -> c.operation().equals("OPTIMIZE"));
    try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
      assertThat(log.map(p -> p.getFileName().toString())).as("a checkpoint")
          .anyMatch(n -> n.endsWith(".checkpoint.parquet"));
    }
    try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
      assertThat(log.filter(p -> p.toString().endsWith(".json"))).as("commits that mark rows with deletion vectors")
          .anyMatch(p -> read(p).contains("\"deletionVector\":{\"storageType\""));
    }

    long latest = DeltaTable.open(table).latest().version();
    TrinoServer trino = TrinoServer.shared();
    String name = register(trino, "delta", location(table));
    TrinoChecks.assertReads(trino, name, spec, Scd2Fold.fold(spec, stream.events()), latest / 2,
        KernelReader.atVersion(table, spec, latest / 2), history);
  }

  @Test
  void shouldReadTablesOnS3InTrinoEqualToTheReferenceFold() throws Exception {
    TrinoServer trino = TrinoServer.shared();
    try (S3ProxyServer s3 = S3ProxyServer.inMemoryIgnoringUnknownHeaders()) {
      s3.createBucket("dims");
      String catalog = "delta_s3_" + s3.endpoint().substring(s3.endpoint().lastIndexOf(':') + 1);
      // Trino's native S3 file system, path-style to the server; the file metastore in the same bucket
      trino.execute("CREATE CATALOG " + catalog + " USING delta_lake WITH ("
          + "\"hive.metastore\" = 'file', \"hive.metastore.catalog.dir\" = 's3://dims/trino-metastore', "
          + "\"delta.register-table-procedure.enabled\" = 'true', \"fs.native-s3.enabled\" = 'true', "
          + "\"s3.endpoint\" = '" + s3.endpoint() + "', \"s3.region\" = 'us-east-1', "
          + "\"s3.path-style-access\" = 'true', \"s3.aws-access-key\" = 'dimstream-test', "
          + "\"s3.aws-secret-key\" = 'dimstream-test-secret')");
      try {
        String storage = "  storage: {s3: {endpoint: \"" + s3.endpoint() + "\", region: us-east-1}}\n";

        DimensionSpec batch = onS3(ExampleSpec.write(dir, "customers_trino_s3_backfill", "backfill",
            dir.resolve("data-b"), storage, ""), "s3://dims/warehouse/backfilled");
        ChangeStreams.GeneratedStream backfilled = ChangeStreams.random(batch, 67L).keys(300).events(3_000)
            .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
        Path input = Files.write(dir.resolve("changes.jsonl"), backfilled.jsonLines(), StandardCharsets.UTF_8);
        assertThat(Main.commandLine().execute("backfill", "--config", batch.source().toString(), "--input",
            input.toString(), "--table", "s3://dims/warehouse/backfilled")).as("backfill exit code").isZero();
        List<Version> backfilledFold = Scd2Fold.fold(batch, backfilled.events());
        TrinoChecks.assertReads(trino, register(trino, catalog, "s3://dims/warehouse/backfilled"), batch,
            backfilledFold, 0, List.of(), DeltaTable.open(s3.store("dims", "warehouse/backfilled")).history());

        DimensionSpec streaming = onS3(ExampleSpec.write(dir, "customers_trino_s3_run", "run",
            dir.resolve("data-r"), "  partitions: 2\n" + storage,
            "output: {table_properties: {delta.checkpointInterval: \"4\"}}\n"), "s3://dims/warehouse/streamed");
        ChangeStreams.GeneratedStream streamed = ChangeStreams.random(streaming, 68L).keys(200).events(1_200)
            .sameSequence(0).late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
        runService(streaming, streamed.jsonLines(), false);
        ObjectStore store = s3.store("dims", "warehouse/streamed");
        long beforeOptimize = DeltaTable.open(store).latest().version();
        System.setProperty("aws.endpointUrlS3", s3.endpoint());
        System.setProperty("aws.region", "us-east-1");
        try {
          assertThat(Main.commandLine().execute("table", "optimize", "--table", "s3://dims/warehouse/streamed"))
              .as("optimize exit code").isZero();
        } finally {
          System.clearProperty("aws.endpointUrlS3");
          System.clearProperty("aws.region");
        }
        List<CommitSummary> history = DeltaTable.open(store).history();
        assertThat(history).extracting(CommitSummary::operation).as("commits, compaction and optimize")
            .contains("MERGE", "OPTIMIZE");
        assertThat(store.list("_delta_log/", null)).extracting(ObjectInfo::key).as("a checkpoint")
            .anyMatch(k -> k.endsWith(".checkpoint.parquet"));
        List<String> log = new ArrayList<>();
        for (ObjectInfo o : store.list("_delta_log/", null)) {
          if (o.key().endsWith(".json")) {
            log.add(new String(store.read(o.key()), StandardCharsets.UTF_8));
          }
        }
        assertThat(log).as("commits that mark rows with deletion vectors")
            .anyMatch(commit -> commit.contains("\"deletionVector\":{\"storageType\""));
        // every event had reached the table before the optimize, which changes no row
        List<Version> streamedFold = Scd2Fold.fold(streaming, streamed.events());
        TrinoChecks.assertReads(trino, register(trino, catalog, "s3://dims/warehouse/streamed"), streaming,
            streamedFold, beforeOptimize, streamedFold, history);
      } finally {
        trino.execute("DROP CATALOG " + catalog);
      }
    }
  }

  /** The spec file with its table moved to {@code table}. */
  private DimensionSpec onS3(Path yaml, String table) throws Exception {
    String text = Files.readString(yaml).replace("table_path: " + dir.resolve("table"), "table_path: " + table);
    return DimensionSpecLoader.load(Files.writeString(yaml, text));
  }

  /** Runs the service (and, with {@code extraCompactor}, a second compactor) until {@code lines} reach the table. */
  private void runService(DimensionSpec spec, List<String> lines, boolean extraCompactor) throws Exception {
    Compactor second = null;
    Thread thread = null;
    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      if (extraCompactor) {
        second = new Compactor(spec, Compactor.openTable(spec), new VersionJson(spec)::decodeChange,
            service.kafka(), "second:/b", Clock.systemUTC());
        thread = new Thread(second, "second-compactor");
        thread.start();
      }
      for (int from = 0; from < lines.size(); from += 200) {
        Path file = dir.resolve("batch-" + System.nanoTime() + ".jsonl");
        Files.write(file, lines.subList(from, Math.min(lines.size(), from + 200)), StandardCharsets.UTF_8);
        Compactor other = second;
        long commits = commits(service, other);
        ProduceCommand.produce(spec, file, service.kafka());
        CatchUp.await(() -> commits(service, other) > commits, Duration.ofSeconds(30));
      }
      DeltaTable view = Compactor.openTable(spec);
      assertThat(CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
          && CatchUp.tableCaughtUp(service.kafka(), spec, view), Duration.ofMinutes(3)))
          .as("the table caught up").isTrue();
      assertThat(service.compactor().failure()).isNull();
    } finally {
      if (second != null) {
        second.stop(Duration.ofSeconds(30));
        thread.join(30_000);
        assertThat(second.failure()).isNull();
      }
    }
  }

  private static long commits(DimensionService service, Compactor second) {
    Compactor own = service.compactor();
    return (own == null ? 0 : own.commits()) + (second == null ? 0 : second.commits());
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
