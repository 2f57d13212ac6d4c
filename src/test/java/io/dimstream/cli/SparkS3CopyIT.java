package io.dimstream.cli;

import static io.dimstream.interop.SparkChecks.assertReads;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.history.Scd2Fold;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.compactor.Compactor;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.S3ProxyServer;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables dimstream wrote to S3 (s3proxy on 127.0.0.1), copied object by object out of the bucket as
 * {@code aws s3 sync} would, open in Spark 4.0 + Delta 4.0 and equal the reference fold: one written by
 * {@code backfill}, one by {@code run}'s compactor in many merge-on-read commits (deletion vectors, background
 * compaction, checkpoints) and then {@code table optimize}. Nothing in the objects depends on the store that held them.
 */
class SparkS3CopyIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldReadCopiesOfS3TablesInSparkEqualToTheReferenceFold() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.inMemory()) {
      s3.createBucket("dims");
      String storage = "  storage: {s3: {endpoint: \"" + s3.endpoint() + "\", region: us-east-1}}\n";

      DimensionSpec batch = onS3(ExampleSpec.write(dir, "customers_s3_backfill", "backfill", dir.resolve("data-b"),
          storage, ""), "s3://dims/warehouse/backfilled");
      ChangeStreams.GeneratedStream backfilled = ChangeStreams.random(batch, 44L).keys(300).events(3_000)
          .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
      Path input = Files.write(dir.resolve("changes.jsonl"), backfilled.jsonLines(), StandardCharsets.UTF_8);
      assertThat(Main.commandLine().execute("backfill", "--config", batch.source().toString(), "--input",
          input.toString(), "--table", "s3://dims/warehouse/backfilled")).as("backfill exit code").isZero();

      DimensionSpec streaming = onS3(ExampleSpec.write(dir, "customers_s3_run", "run", dir.resolve("data-r"),
          "  partitions: 2\n" + storage, "output: {table_properties: {delta.checkpointInterval: \"4\"}}\n"),
          "s3://dims/warehouse/streamed");
      ChangeStreams.GeneratedStream streamed = ChangeStreams.random(streaming, 45L).keys(200).events(1_600)
          .sameSequence(0).late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
      runService(streaming, streamed.jsonLines());
      // the table commands take the endpoint from the environment, as the SDK does
      System.setProperty("aws.endpointUrlS3", s3.endpoint());
      System.setProperty("aws.region", "us-east-1");
      try {
        assertThat(Main.commandLine().execute("table", "optimize", "--table", "s3://dims/warehouse/streamed"))
            .as("optimize exit code").isZero();
      } finally {
        System.clearProperty("aws.endpointUrlS3");
        System.clearProperty("aws.region");
      }

      DeltaTable run = DeltaTable.open(s3.store("dims", "warehouse/streamed"));
      List<CommitSummary> history = run.history();
      assertThat(history.stream().filter(c -> c.operation().equals("MERGE")).count()).as("many commits")
          .isGreaterThanOrEqualTo(4);
      assertThat(history).extracting(CommitSummary::operation).as("compaction").contains("OPTIMIZE");
      ObjectStore streamedStore = s3.store("dims", "warehouse/streamed");
      List<String> log = new ArrayList<>();
      for (ObjectInfo o : streamedStore.list("_delta_log/", null)) {
        if (o.key().endsWith(".json")) {
          log.add(new String(streamedStore.read(o.key()), StandardCharsets.UTF_8));
        }
      }
      assertThat(streamedStore.list("_delta_log/", null)).extracting(ObjectInfo::key)
          .as("a checkpoint").anyMatch(k -> k.endsWith(".checkpoint.parquet"));
      assertThat(log).as("commits that mark rows with deletion vectors")
          .anyMatch(commit -> commit.contains("\"deletionVector\":{\"storageType\""));

      Path copy = copyOfBucket(s3.store("dims", ""), dir.resolve("copy-of-bucket"));
      Path backfilledCopy = copy.resolve("warehouse/backfilled");
      Path streamedCopy = copy.resolve("warehouse/streamed");
      assertThat(DeltaTable.open(backfilledCopy).latest().version())
          .isEqualTo(DeltaTable.open(s3.store("dims", "warehouse/backfilled")).latest().version());
      assertReads(backfilledCopy, batch, Scd2Fold.fold(batch, backfilled.events()), 0);
      assertReads(streamedCopy, streaming, Scd2Fold.fold(streaming, streamed.events()),
          run.latest().version() / 2);
    }
  }

  /** Every object of {@code bucket} written under {@code target} at its key, as {@code aws s3 sync} does. */
  private static Path copyOfBucket(ObjectStore bucket, Path target) throws Exception {
    for (ObjectInfo o : bucket.list("", null)) {
      Path file = target.resolve(o.key());
      Files.createDirectories(file.getParent());
      Files.write(file, bucket.read(o.key()));
    }
    return target;
  }

  /** The spec file with its table moved to {@code table}. */
  private DimensionSpec onS3(Path yaml, String table) throws Exception {
    String text = Files.readString(yaml).replace("table_path: " + dir.resolve("table"), "table_path: " + table);
    return DimensionSpecLoader.load(Files.writeString(yaml, text));
  }

  /** {@code run} in this JVM until {@code lines}, produced 200 at a time, reach the table. */
  private void runService(DimensionSpec spec, List<String> lines) throws Exception {
    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      for (int from = 0; from < lines.size(); from += 200) {
        Path file = dir.resolve("batch-" + from + ".jsonl");
        Files.write(file, lines.subList(from, Math.min(lines.size(), from + 200)), StandardCharsets.UTF_8);
        long commits = commits(service);
        ProduceCommand.produce(spec, file, service.kafka());
        CatchUp.await(() -> commits(service) > commits, Duration.ofSeconds(30));
      }
      DeltaTable view = Compactor.openTable(spec);
      assertThat(CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
          && CatchUp.tableCaughtUp(service.kafka(), spec, view), Duration.ofMinutes(3)))
          .as("the table caught up").isTrue();
      assertThat(service.compactor().failure()).isNull();
    }
  }

  private static long commits(DimensionService service) {
    return service.compactor() == null ? 0 : service.compactor().commits();
  }
}
