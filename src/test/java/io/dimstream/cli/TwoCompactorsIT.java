package io.dimstream.cli;

import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionJson;
import io.dimstream.compactor.Compactor;
import io.dimstream.compactor.CompactorException;
import io.dimstream.compactor.LeaseHeldException;
import io.dimstream.history.Scd2Fold;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only one compactor writes a copy-on-write table (every commit rewrites shared bucket files): a second one (another owner) is refused while the first one's lease is fresh,
 * and one that takes over a lease it sees as stale makes the first stop at its next renewal. Through both, the
 * Delta log stays valid and the table ends equal to the reference fold.
 */
class TwoCompactorsIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldRefuseASecondCompactorAndHandOverOnlyAStaleLease() throws Exception {
    DimensionSpec spec = EndToEndIT.spec("customers_two", dir);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 4L).keys(300).events(3_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    List<String> lines = stream.jsonLines();
    Path first = dir.resolve("first.jsonl");
    Path second = dir.resolve("second.jsonl");
    Files.write(first, lines.subList(0, 1_500), StandardCharsets.UTF_8);
    Files.write(second, lines.subList(1_500, lines.size()), StandardCharsets.UTF_8);
    Path table = spec.service().tablePath().localPath();
    // the lease guards copy-on-write tables; merge-on-read tables take several compactors (ScaleOutCompactorsIT)
    DeltaTable.create(table, spec, Map.of("delta.enableDeletionVectors", "false"));
    VersionJson json = new VersionJson(spec);

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      ProduceCommand.produce(spec, first, service.kafka());
      assertThat(caughtUp(service, spec)).as("the first half reached the table").isTrue();
      long before = DeltaTable.open(table).latest().version();

      Compactor intruder = new Compactor(spec, Compactor.openTable(spec), json::decodeChange,
          service.kafka(), "other-host:/elsewhere", Clock.systemUTC());
      assertThatThrownBy(intruder::run)
          .isInstanceOf(LeaseHeldException.class)
          .hasMessageContaining("Another compactor (")
          .hasMessageContaining("Only one compactor may write a table");
      assertThat(intruder.failure()).isInstanceOf(LeaseHeldException.class);
      assertThat(service.compactor().failure()).as("the lease holder keeps running").isNull();
      HttpResponse<String> up = health(service);
      assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
      assertThat(up.body()).contains("\"compactor\":\"running\"");
      assertThat(DeltaTable.open(table).latest().version()).isEqualTo(before);

      // A successor whose clock runs 10 minutes ahead sees the lease as abandoned and takes it over.
      Compactor successor = new Compactor(spec, Compactor.openTable(spec), json::decodeChange,
          service.kafka(), "successor:/elsewhere", Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10)));
      Thread successorThread = new Thread(successor, "successor-compactor");
      successorThread.setUncaughtExceptionHandler((t, e) -> { });
      successorThread.start();
      try {
        assertThat(CatchUp.await(() -> service.compactor().failure() != null, Duration.ofSeconds(30)))
            .as("the first compactor stops once its lease is taken").isTrue();
        assertThat(service.compactor().failure())
            .isInstanceOf(CompactorException.class)
            .hasMessageContaining("was taken over by successor:/elsewhere");
        HttpResponse<String> down = health(service);
        assertThat(down.statusCode()).as("/health once the compactor failed").isEqualTo(503);
        assertThat(down.body()).contains("\"compactor\":\"failed: The compactor lease");

        ProduceCommand.produce(spec, second, service.kafka());
        DeltaTable view = Compactor.openTable(spec);
        assertThat(CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
            && CatchUp.tableCaughtUp(service.kafka(), spec, view), Duration.ofMinutes(2)))
            .as("the successor brought the table up to date").isTrue();
        assertThat(successor.failure()).isNull();
      } finally {
        successor.stop(Duration.ofSeconds(30));
        successorThread.join(30_000);
      }
    }

    assertThat(EndToEndIT.sorted(KernelReader.latest(table, spec)))
        .containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
    assertLogIsValid(table);
  }

  private static HttpResponse<String> health(DimensionService service) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + service.httpPort() + "/health")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static boolean caughtUp(DimensionService service, DimensionSpec spec) throws InterruptedException {
    return CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
        && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofMinutes(2));
  }

  /** Commit files 0..latest with no gap, Kernel and our reader agree on the latest version, txn never backwards. */
  static void assertLogIsValid(Path table) throws Exception {
    List<Long> commits;
    try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
      commits = files.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d{20}\\.json"))
          .map(n -> Long.parseLong(n.substring(0, 20))).sorted().toList();
    }
    long latest = KernelReader.latestVersion(table);
    assertThat(commits).containsExactlyElementsOf(LongStream.rangeClosed(0, latest).boxed().toList());
    DeltaTable ours = DeltaTable.open(table);
    assertThat(ours.latest().version()).isEqualTo(latest);
    Map<String, Long> previous = new HashMap<>();
    for (long v = 0; v <= latest; v++) {
      Map<String, Long> now = ours.snapshotAt(v).txnVersions();
      for (var e : previous.entrySet()) {
        assertThat(now.getOrDefault(e.getKey(), -1L)).as("txn %s at table version %d", e.getKey(), v)
            .isGreaterThanOrEqualTo(e.getValue());
      }
      previous = now;
    }
    // a checkpoint the service's background thread started before the stop may still be renaming its file
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      try (var files = Files.list(table.resolve("_delta_log"))) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .as("no temporary or partial commit files left")
            .allMatch(n -> n.matches("\\d{20}\\.(json|checkpoint\\.parquet)") || n.equals("_last_checkpoint"));
      }
    });
  }
}
