package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.compactor.Compactor;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.ExampleSpec;
import io.dimstream.storage.AzuriteServer;
import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.S3ProxyServer;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code dimstream run} processes, each with its own data directory, on one merge-on-read table in an object
 * store, as two pods of a deployment would run: in S3 (s3proxy on 127.0.0.1, on disk) and in Azure Blob Storage
 * (Azurite on 127.0.0.1). Both commit to the table, the log has no gap, the table equals the reference fold of the
 * stream, and the timeline page and its commits are served from the table in the store.
 */
class TwoServicesOnObjectStoreIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final Pattern ENDPOINT = Pattern.compile("Query endpoint listening on http://[^:]+:(\\d+)/");

  @TempDir
  Path dir;

  /** The store a test runs on: the spec's storage lines, the table's URI, the children's environment. */
  private interface Store extends AutoCloseable {
    String storageLines();

    String table();

    Map<String, String> env();

    ObjectStore store();
  }

  private static Store s3(Path dir) throws Exception {
    S3ProxyServer s3 = S3ProxyServer.onDisk(Files.createDirectories(dir.resolve("bucket-store")));
    s3.createBucket("dims");
    return new Store() {
      public String storageLines() {
        return "  storage: {s3: {endpoint: \"" + s3.endpoint() + "\", region: us-east-1}}\n";
      }

      public String table() {
        return "s3://dims/customers";
      }

      public Map<String, String> env() {
        // the SDK's default credential chain in the children; s3proxy checks no signature
        return Map.of("AWS_ACCESS_KEY_ID", "dimstream-test", "AWS_SECRET_ACCESS_KEY", "dimstream-test-secret");
      }

      public ObjectStore store() {
        return s3.store("dims", "customers");
      }

      public void close() throws Exception {
        s3.close();
      }
    };
  }

  private static Store azure() throws Exception {
    AzuriteServer azurite = AzuriteServer.start();
    azurite.createContainer("dims");
    return new Store() {
      public String storageLines() {
        return "  storage: {azure: {connection_string: \"" + azurite.connectionString() + "\"}}\n";
      }

      public String table() {
        return "az://dims/customers";
      }

      public Map<String, String> env() {
        return Map.of();
      }

      public ObjectStore store() {
        return azurite.store("dims", "customers");
      }

      public void close() {
        azurite.close();
      }
    };
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"s3", "azure"})
  void shouldShareOneTableBetweenTwoServiceProcessesEqualToTheReferenceFold(String kind) throws Exception {
    try (Store objects = kind.equals("s3") ? s3(dir) : azure()) {
      String name = "customers_" + kind + "two";
      String service = "  partitions: 4\n" + objects.storageLines();
      Path first = onStore(ExampleSpec.write(dir, name, "first", dir.resolve("data-1"), service, ""), objects.table());
      Path second = onStore(ExampleSpec.write(dir, name, "second", dir.resolve("data-2"), service, ""),
          objects.table());
      DimensionSpec spec = DimensionSpecLoader.load(first);
      assertThat(spec.service().tablePath().toString()).isEqualTo(objects.table());
      // unkeyed records on 4 partitions reach the topology in no fixed order: no two events of a key share a sequence
      ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 31L).keys(400).events(4_000).sameSequence(0)
          .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
      Path input = dir.resolve("changes.jsonl");
      Files.write(input, stream.jsonLines(), StandardCharsets.UTF_8);
      Map<String, Object> kafka = KAFKA.clientProperties();
      Map<String, String> env = objects.env();
      Path log1 = Path.of("target", "TwoServicesOnObjectStoreIT-" + kind + "-first.log");
      Path log2 = Path.of("target", "TwoServicesOnObjectStoreIT-" + kind + "-second.log");
      Files.deleteIfExists(log1);
      Files.deleteIfExists(log2);

      try (ServiceProcess one = ServiceProcess.start(log1, env, "--config", first.toString(), "--bootstrap-servers",
          KAFKA.bootstrapServers())) {
        int port = awaitPort(one, log1);
        try (ServiceProcess two = ServiceProcess.start(log2, env, "--config", second.toString(),
            "--bootstrap-servers", KAFKA.bootstrapServers())) {
          awaitPort(two, log2);
          // the compactor group rebalances cooperatively, in two rounds: the changes go once the second instance's
          // compactor holds partitions, or the first may have committed them all before it took any
          Pattern holds = Pattern.compile("now writes [1-9]\\d* of ");
          assertThat(CatchUp.await(() -> holds.matcher(readQuietly(log2)).find(), Duration.ofMinutes(1)))
              .as("the second instance's compactor took partitions; see %s", log2).isTrue();
          ProduceCommand.produce(spec, input, kafka);
          DeltaTable view = Compactor.openTable(spec);
          assertThat(CatchUp.await(() -> CatchUp.streamsCaughtUp(kafka, spec, "dimstream-" + spec.name())
              && CatchUp.tableCaughtUp(kafka, spec, view), Duration.ofMinutes(3)))
              .as("the table caught up with the stream; see %s and %s", log1, log2).isTrue();
          assertThat(Files.readString(log1)).as("the first instance committed").contains(" records from ");
          assertThat(Files.readString(log2)).as("the second instance committed").contains(" records from ");

          HttpClient http = HttpClient.newHttpClient();
          HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
              .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
          assertThat(page.statusCode()).isEqualTo(200);
          assertThat(page.body()).containsIgnoringCase("<html");
          long latest = DeltaTable.open(objects.store()).latest().version();
          HttpResponse<String> commits = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
              + "/dimensions/" + name + "/commits")).timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString());
          assertThat(commits.statusCode()).as(commits.body()).isEqualTo(200);
          assertThat(commits.body()).as("the timeline's commits come from the table in the store")
              .contains("\"version\":" + latest);

          assertThat(two.stop()).as("exit code after SIGTERM; see " + log2).isZero();
        }
        assertThat(one.stop()).as("exit code after SIGTERM; see " + log1).isZero();
      }

      ObjectStore store = objects.store();
      List<Long> commits = new ArrayList<>();
      for (ObjectInfo o : store.list("_delta_log/", null)) {
        String file = o.key().substring("_delta_log/".length());
        if (file.matches("\\d{20}\\.json")) {
          commits.add(Long.parseLong(file.substring(0, 20)));
        }
      }
      DeltaTable t = DeltaTable.open(store);
      assertThat(commits).as("a log with no gap").containsExactlyElementsOf(
          LongStream.rangeClosed(0, t.latest().version()).boxed().toList());
      try (Stream<Version> rows = t.latest().scan()) {
        assertThat(EndToEndIT.sorted(rows.toList())).containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
      }
    }
  }

  /** The spec file with its table moved to {@code table}. */
  private Path onStore(Path yaml, String table) throws Exception {
    String text = Files.readString(yaml).replace("table_path: " + dir.resolve("table"), "table_path: " + table);
    return Files.writeString(yaml, text);
  }

  private static int awaitPort(ServiceProcess process, Path log) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < deadline) {
      assertThat(process.isAlive()).as("the service is running; see %s", log).isTrue();
      if (Files.exists(log)) {
        Matcher m = ENDPOINT.matcher(Files.readString(log));
        if (m.find()) {
          return Integer.parseInt(m.group(1));
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the service did not start its endpoint within 90 s; see " + log);
  }

  private static String readQuietly(Path log) {
    try {
      return Files.readString(log);
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
