package io.dimstream.cli;

import io.dimstream.service.CatchUp;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.TopicReader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.compactor.VersionsTopicIdentity;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream run} in a child JVM, killed with SIGKILL (no shutdown hook, no flush, no lease release) at
 * several points and restarted each time, must end with the same table as one clean run: the reference fold,
 * no duplicate and no lost version, the two bad records in the DLQ once, and {@code txn} markers that never go
 * backwards from one table version to the next.
 */
class CrashResumeIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(90);

  @TempDir
  Path dir;

  private Path table;
  private Path log;

  @Test
  void shouldEndWithTheReferenceTableAfterRepeatedCrashes() throws Exception {
    Path yaml = writeSpec("customers_crash");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    table = dir.resolve("table");
    log = Path.of("target", "CrashResumeIT-service.log");
    Files.deleteIfExists(log);
    ChangeStreams.GeneratedStream stream = EndToEndIT.stream(spec);
    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    List<Path> chunks = writeChunks(stream, 4);
    Map<String, Object> kafka = KAFKA.clientProperties();
    String[] args = {"--config", yaml.toString(), "--bootstrap-servers", KAFKA.bootstrapServers()};

    // Crash 1: right after the first table commit that applied versions.
    ProduceCommand.produce(spec, chunks.get(0), kafka);
    try (ServiceProcess service = ServiceProcess.start(log, args)) {
      awaitOrFail(service, () -> !txnVersions().isEmpty(), "the first table commit");
      service.kill();
    }
    long afterFirstCrash = latestVersion();
    phase("crash 1 at table version " + afterFirstCrash);

    // Crash 2: mid-way, after more commits, with the third chunk just sent.
    ProduceCommand.produce(spec, chunks.get(1), kafka);
    try (ServiceProcess service = ServiceProcess.start(log, args)) {
      awaitOrFail(service, () -> latestVersion() > afterFirstCrash, "a commit after the first restart");
      ProduceCommand.produce(spec, chunks.get(2), kafka);
      long mid = latestVersion();
      awaitOrFail(service, () -> latestVersion() > mid, "one more commit");
      service.kill();
    }
    phase("crash 2, table caught up: " + tableCaughtUp(spec, kafka));

    // Crash 3: very early, as soon as this run has started Streams (which then restores its stores).
    long startsBefore = startedRuns();
    try (ServiceProcess service = ServiceProcess.start(log, args)) {
      awaitOrFail(service, () -> startedRuns() > startsBefore, "the service to start Streams");
      service.kill();
    }

    phase("crash 3");
    // Crash 4: as soon as the restarted service has committed once more, with the last chunk in flight.
    long beforeFourth = latestVersion();
    ProduceCommand.produce(spec, chunks.get(3), kafka);
    try (ServiceProcess service = ServiceProcess.start(log, args)) {
      awaitOrFail(service, () -> latestVersion() > beforeFourth, "a commit after the early crash");
      service.kill();
    }

    phase("crash 4 at table version " + latestVersion());
    // The last run catches up and stops cleanly on SIGTERM. It must have started first: the previous run may
    // already have brought the table up to date, and a SIGTERM during start-up is not the clean stop tested here.
    long startsBeforeLast = startedRuns();
    try (ServiceProcess service = ServiceProcess.start(log, args)) {
      awaitOrFail(service, () -> startedRuns() > startsBeforeLast, "the last run to start");
      awaitOrFail(service, () -> CatchUp.streamsCaughtUp(kafka, spec, "dimstream-" + spec.name())
          && tableCaughtUp(spec, kafka), "the table to catch up with the whole stream");
      assertThat(service.stop()).as("exit code after SIGTERM; see " + log).isZero();
    }

    phase("stopped cleanly at table version " + latestVersion());
    List<Version> kernelRows = EndToEndIT.sorted(KernelReader.latest(table, spec));
    assertThat(kernelRows).containsExactlyElementsOf(expected);
    try (Stream<Version> ours = DeltaTable.open(table).latest().scan()) {
      assertThat(EndToEndIT.sorted(ours.toList())).containsExactlyElementsOf(expected);
    }
    Set<List<Object>> identities = new HashSet<>();
    for (Version v : kernelRows) {
      assertThat(identities.add(List.of(v.key(), v.validFrom()))).as("duplicate version %s", v).isTrue();
    }

    List<ConsumerRecord<byte[], byte[]>> dead = TopicReader.readAll(kafka, spec.topics().dlq(), true).kept();
    assertThat(dead).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
        .containsExactlyInAnyOrder(EndToEndIT.BROKEN_JSON, EndToEndIT.MISSING_KEY);

    assertTxnVersionsNeverGoBackwards();
  }

  private static Map<String, Long> versionsMarkers(Map<String, Long> txns) {
    Map<String, Long> out = new HashMap<>(txns);
    out.keySet().removeIf(app -> !app.contains("-versions-"));
    return out;
  }

  private final long started = System.nanoTime();

  private void phase(String what) {
    System.out.printf("CrashResumeIT +%d s: %s%n", (System.nanoTime() - started) / 1_000_000_000, what);
  }

  private void assertTxnVersionsNeverGoBackwards() {
    DeltaTable t = DeltaTable.open(table);
    long latest = t.latest().version();
    assertThat(KernelReader.latestVersion(table)).isEqualTo(latest);
    Map<String, Long> previous = new HashMap<>();
    int commitsWithTxn = 0;
    for (long v = 0; v <= latest; v++) {
      Map<String, Long> now = versionsMarkers(t.snapshotAt(v).txnVersions());
      for (var e : previous.entrySet()) {
        assertThat(now).as("table version %d still records %s", v, e.getKey()).containsKey(e.getKey());
        assertThat(now.get(e.getKey())).as("txn version of %s at table version %d", e.getKey(), v)
            .isGreaterThanOrEqualTo(e.getValue());
      }
      if (!now.equals(previous)) {
        commitsWithTxn++;
      }
      previous = now;
    }
    assertThat(previous).as("every versions-topic partition has a txn marker").hasSize(3);
    assertThat(commitsWithTxn).as("commits that advanced a txn marker").isGreaterThanOrEqualTo(4);
  }

  private Path writeSpec(String name) throws Exception {
    return ExampleSpec.write(dir, name, name, dir.resolve("data"), "  partitions: 3\n", "");
  }

  /** The stream with its two bad records, cut into {@code n} files of consecutive lines. */
  private List<Path> writeChunks(ChangeStreams.GeneratedStream stream, int n) throws Exception {
    Path all = EndToEndIT.writeInput(stream, dir.resolve("changes.jsonl"));
    List<String> lines = Files.readAllLines(all, StandardCharsets.UTF_8);
    List<Path> out = new ArrayList<>();
    int size = (lines.size() + n - 1) / n;
    for (int i = 0; i < n; i++) {
      Path f = dir.resolve("chunk-" + i + ".jsonl");
      Files.write(f, lines.subList(i * size, Math.min(lines.size(), (i + 1) * size)), StandardCharsets.UTF_8);
      out.add(f);
    }
    return out;
  }

  private void awaitOrFail(ServiceProcess service, Callable<Boolean> condition, String what) throws Exception {
    try {
      await(what).atMost(PHASE_TIMEOUT).pollInterval(Duration.ofMillis(100))
          .failFast("the service died", () -> !service.isAlive())
          .until(condition);
    } catch (TerminalFailureException e) {
      fail("The service died while waiting for " + what + ":\n" + tail());
    } catch (ConditionTimeoutException e) {
      fail("Timed out after " + PHASE_TIMEOUT.toSeconds() + " s waiting for " + what + ":\n" + tail());
    }
  }

  /** How many runs have logged that they started Streams (the log collects every run of this test). */
  private long startedRuns() throws Exception {
    if (!Files.exists(log)) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines.filter(l -> l.contains("dimstream customers_crash running: ")).count();
    }
  }

  private String tail() throws Exception {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  private boolean tableExists() {
    return Files.isDirectory(table.resolve("_delta_log"));
  }

  private long latestVersion() {
    try {
      return tableExists() ? DeltaTable.open(table).latest().version() : -1;
    } catch (RuntimeException e) {
      return -1; // the first commit is being written
    }
  }

  private Map<String, Long> txnVersions() {
    try {
      // the versions topic's offsets only: the table also names the state built from it (StateMarkers)
      return tableExists() ? versionsMarkers(DeltaTable.open(table).latest().txnVersions()) : Map.of();
    } catch (RuntimeException e) {
      return Map.of();
    }
  }

  /** Whether the table records the offset of every record now on the versions topic. */
  private boolean tableCaughtUp(DimensionSpec spec, Map<String, Object> kafka) {
    Map<String, Long> recorded = txnVersions();
    TopicReader.Contents versions = TopicReader.readAll(kafka, spec.topics().versions(), false);
    if (versions.lastOffsets().isEmpty()) {
      return false;
    }
    VersionsTopicIdentity identity = new VersionsTopicIdentity(spec.name(), spec.topics().versions(),
        VersionsTopicIdentity.topicId(kafka, spec.topics().versions()));
    for (var e : versions.lastOffsets().entrySet()) {
      Long r = recorded.get(identity.appId(e.getKey()));
      if (r == null || r < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
