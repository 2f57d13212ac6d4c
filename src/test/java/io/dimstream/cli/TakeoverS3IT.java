package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.service.ExampleSpec;
import io.dimstream.service.KafkaClients;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.storage.S3ProxyServer;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream backfill} then {@code dimstream run} on a table in S3 (s3proxy on 127.0.0.1, its objects on disk),
 * as a user runs them: the service takes over the backfilled table in the store and continues it with the second half
 * of the stream, and the table equals the fold of the whole stream (read with Delta Kernel from the files s3proxy
 * keeps, and with ours through S3), except for the keys a takeover cannot make exact.
 */
class TakeoverS3IT {
  @TempDir
  Path dir;

  /**
   * Backfill then run, then the data directory lost and run again on a new one, on a table in S3: the event store the
   * table keeps beside its rows (in the bucket, under {@code _dimstream/events/}) makes both hand-overs exact.
   */
  @Test
  void shouldContinueATableInS3ExactlyAfterABackfillAndAfterLostState() throws Exception {
    Path objects = Files.createDirectories(dir.resolve("bucket-store"));
    try (S3ProxyServer s3 = S3ProxyServer.onDisk(objects)) {
      s3.createBucket("dims");
      String table = "s3://dims/customers";
      String storage = "  storage: {s3: {endpoint: \"" + s3.endpoint() + "\", region: us-east-1}}\n";
      Path yaml = ExampleSpec.write(dir, "customers_takeover_s3", "customers_takeover_s3", dir.resolve("data"),
          storage, "");
      DimensionSpec spec = DimensionSpecLoader.load(yaml);
      ChangeStreams.GeneratedStream stream = EndToEndIT.stream(spec);
      List<Path> thirds = TakeoverIT.thirds(stream, dir);

      assertThat(TakeoverIT.cli("backfill", "--config", yaml.toString(), "--input", thirds.get(0).toString(),
          "--table", table)).isZero();
      // the SDK's default credential chain in the child; s3proxy checks no signature
      Map<String, String> env = Map.of("AWS_ACCESS_KEY_ID", "dimstream-test", "AWS_SECRET_ACCESS_KEY",
          "dimstream-test-secret");
      Path log = TakeoverIT.log("s3");
      try (ServiceProcess service = ServiceProcess.start(log, env, "--config", yaml.toString(), "--table", table)) {
        TakeoverIT.awaitStarted(service, spec, log);
        ProduceCommand.produce(spec, thirds.get(1), KafkaClients.properties(spec, null));
        TakeoverIT.awaitCaughtUp(service, spec, log, () -> DeltaTable.open(s3.store("dims", "customers")));
        assertThat(service.stop()).isZero();
      }
      assertThat(Files.readString(log)).contains("Taking over the table of " + spec.name() + " at " + table);
      assertThat(dir.resolve("table")).as("nothing was written to the spec's local table_path").doesNotExist();

      // the data directory is lost: a new embedded broker, no Streams state, no changelog
      Path moved = ExampleSpec.write(dir, "customers_takeover_s3", "customers_takeover_s3", dir.resolve("data-2"),
          storage, "");
      DimensionSpec movedSpec = DimensionSpecLoader.load(moved);
      Path log2 = TakeoverIT.log("s3-2");
      try (ServiceProcess service = ServiceProcess.start(log2, env, "--config", moved.toString(), "--table", table)) {
        TakeoverIT.awaitStarted(service, movedSpec, log2);
        ProduceCommand.produce(movedSpec, thirds.get(2), KafkaClients.properties(movedSpec, null));
        TakeoverIT.awaitCaughtUp(service, movedSpec, log2, () -> DeltaTable.open(s3.store("dims", "customers")));
        assertThat(service.stop()).isZero();
      }
      assertThat(Files.readString(log2)).containsPattern("Took over [1-9][0-9]* event-store writes kept beside the "
          + "table");
      TakeoverIT.assertTableIsTheFoldOf(spec, stream.events(), 0,
          objects.resolve("dims").resolve("customers"), DeltaTable.open(s3.store("dims", "customers")));
    }
  }
}
