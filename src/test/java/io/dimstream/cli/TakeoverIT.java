package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.table.EventArchive;
import io.dimstream.topology.EventRecordHeaders;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.history.HiddenEvents;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.service.CatchUp;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.KafkaClients;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The hand-overs between the paths that write a table, run as a user runs them (the CLI, {@code dimstream run} in a
 * child JVM with its embedded broker): a stream with late, duplicate, no-change, delete and re-insert events, cut in
 * two halves in arrival order, must give the table of one fold of the whole stream, whichever path wrote each half.
 */
class TakeoverIT {
  static final Duration PHASE_TIMEOUT = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void shouldContinueABackfilledTableExactly() throws Exception {
    Path yaml = spec("customers_takeover_backfill", dir.resolve("data"));
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream stream = EndToEndIT.stream(spec);
    List<Path> halves = halves(stream, dir);

    assertThat(cli("backfill", "--config", yaml.toString(), "--input", halves.get(0).toString(), "--table",
        table().toString())).isZero();
    Path log = log("backfill");
    try (ServiceProcess service = ServiceProcess.start(log, "--config", yaml.toString())) {
      awaitStarted(service, spec, log);
      ProduceCommand.produce(spec, halves.get(1), KafkaClients.properties(spec, null));
      awaitCaughtUp(service, spec, log, () -> DeltaTable.open(table()));
      assertVersionsTopicHoldsTheTable(spec);
      assertThat(service.stop()).isZero();
    }
    // the backfill kept the events its rows do not show: every key is exact, none at risk
    assertTableIsTheFoldOf(spec, stream, 0);
    assertThat(Files.readString(log)).contains("Taking over the table of " + spec.name())
        .containsPattern("Took over [0-9]+ events the backfill kept");
    assertThat(Files.readString(log)).containsPattern("Kept the event store's [0-9]+ records beside the table as "
        + "the base of table version");
  }

  /**
   * The whole life of a table: a backfill of the first third of a stream, {@code run} on it streaming the second
   * third, then the data directory (embedded broker, Streams state, changelogs, versions topic) lost, and {@code run}
   * on a new one streaming the last third. The table is the fold of the whole stream, every key exact: what the rows
   * cannot show came back from the event store the table keeps beside it.
   */
  @Test
  void shouldContinueOnANewKafkaCluster() throws Exception {
    Path first = spec("customers_takeover_cluster", dir.resolve("data-1"));
    DimensionSpec spec = DimensionSpecLoader.load(first);
    ChangeStreams.GeneratedStream stream = EndToEndIT.stream(spec);
    List<Path> thirds = thirds(stream, dir);

    assertThat(cli("backfill", "--config", first.toString(), "--input", thirds.get(0).toString(), "--table",
        table().toString())).isZero();
    Path log = log("cluster-1");
    try (ServiceProcess service = ServiceProcess.start(log, "--config", first.toString())) {
      awaitStarted(service, spec, log);
      ProduceCommand.produce(spec, thirds.get(1), KafkaClients.properties(spec, null));
      awaitCaughtUp(service, spec, log, () -> DeltaTable.open(table()));
      assertThat(service.stop()).isZero();
    }
    assertThat(EventArchive.files(DeltaTable.open(table()).store())).as("the event store's writes kept beside the table")
        .isNotEmpty();
    // the data directory (embedded broker, Streams state, changelogs) is gone; the table stays
    Path second = spec("customers_takeover_cluster", dir.resolve("data-2"));
    DimensionSpec moved = DimensionSpecLoader.load(second);
    log = log("cluster-2");
    try (ServiceProcess service = ServiceProcess.start(log, "--config", second.toString())) {
      awaitStarted(service, moved, log);
      assertThat(Files.readString(log)).containsPattern("Took over [1-9][0-9]* event-store writes kept beside the table");
      ProduceCommand.produce(moved, thirds.get(2), KafkaClients.properties(moved, null));
      awaitCaughtUp(service, moved, log, () -> DeltaTable.open(table()));
      assertVersionsTopicHoldsTheTable(moved); // the new cluster's versions topic got the table's history
      assertThat(service.stop()).isZero();
    }
    assertTableIsTheFoldOf(spec, stream, 0);
  }

  /**
   * {@code run} streams the first part of a stream; a full snapshot newer than all of it is applied with
   * {@code dimstream apply-snapshot} while the service is stopped; {@code run} again on the same data directory (its
   * state intact, but older than the table) takes the table over again and streams events newer than the snapshot;
   * a restart after that, with no batch write since, keeps its state and streams the rest. The table is the fold of
   * the first part, the snapshot's rows as upserts at its sequence, deletes there of the keys it leaves out, and the
   * rest of the stream.
   */
  @Test
  void shouldContinueATableAfterASnapshotWasApplied() throws Exception {
    Path yaml = spec("customers_takeover_snapshot", dir.resolve("data"));
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream part1 = ChangeStreams.random(spec, 20_260_301L).keys(1_000).events(10_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Path part1File = Files.write(dir.resolve("part1.jsonl"), part1.jsonLines(), StandardCharsets.UTF_8);

    Path log1 = log("snapshot-1");
    try (ServiceProcess service = ServiceProcess.start(log1, "--config", yaml.toString())) {
      awaitStarted(service, spec, log1);
      ProduceCommand.produce(spec, part1File, KafkaClients.properties(spec, null));
      awaitCaughtUp(service, spec, log1, () -> DeltaTable.open(table()));
      assertThat(service.stop()).isZero();
    }

    // the source's full export, a day after the newest event: some rows unchanged, some with only untracked columns
    // changed, the others new values; every tenth key left out; 50 keys the stream never had
    long newest = part1.events().stream().mapToLong(e -> e.sequence().first()).max().orElseThrow();
    Instant at = Instant.EPOCH.plus(newest, ChronoUnit.MICROS).plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
    Sequence atSeq = Sequence.of(ChronoUnit.MICROS.between(Instant.EPOCH, at));
    Map<BusinessKey, Version> open = new HashMap<>();
    Scd2Fold.fold(spec, part1.events()).stream().filter(Version::isCurrent).forEach(v -> open.put(v.key(), v));
    List<Column> attrs = spec.attributeColumns();
    Random rnd = new Random(7);
    List<String> snapshotRows = new ArrayList<>();
    List<ChangeEvent> snapshotEvents = new ArrayList<>();
    for (long k = 1; k <= 1_050; k++) {
      BusinessKey key = new BusinessKey(List.of(k));
      if (k % 10 == 0) {
        snapshotEvents.add(ChangeEvent.delete(key, atSeq));
        continue;
      }
      Version current = open.get(key);
      double dice = rnd.nextDouble();
      List<Object> values = new ArrayList<>();
      for (int a = 0; a < attrs.size(); a++) {
        boolean keep = current != null && (dice < 0.3 || (dice < 0.5 && spec.isTracked(attrs.get(a).name())));
        values.add(keep ? current.attributes().get(a) : rnd.nextInt(10) == 0 ? null : "s" + rnd.nextInt(4));
      }
      snapshotEvents.add(ChangeEvent.upsert(key, atSeq, values));
      StringBuilder row = new StringBuilder("{\"customer_id\": " + k);
      for (int a = 0; a < attrs.size(); a++) {
        row.append(", \"").append(attrs.get(a).name()).append("\": ")
            .append(ColumnValues.toJson(values.get(a), attrs.get(a).type()));
      }
      snapshotRows.add(row.append('}').toString());
    }
    Path snapshot = Files.write(dir.resolve("snapshot.jsonl"), snapshotRows, StandardCharsets.UTF_8);
    assertThat(cli("apply-snapshot", "--config", yaml.toString(), "--table", table().toString(), "--input",
        snapshot.toString(), "--at", at.toString())).isZero();
    List<ChangeEvent> untilSnapshot = new ArrayList<>(part1.events());
    untilSnapshot.addAll(snapshotEvents);
    try (Stream<Version> rows = DeltaTable.open(table()).latest().scan()) {
      assertThat(EndToEndIT.sorted(rows.toList())).as("the table after the snapshot")
          .containsExactlyElementsOf(Scd2Fold.fold(spec, untilSnapshot));
    }

    // events after the snapshot, on its keys and on 50 new ones, streamed by two runs
    ChangeStreams.GeneratedStream part2 = ChangeStreams.random(spec, 20_260_302L).keys(1_100).events(6_000)
        .startingAt(at.plus(1, ChronoUnit.HOURS)).late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    // and late ones: a city change an hour before the snapshot of 100 keys it carried, most with a row equal to their
    // open version or changing untracked columns only, which no version shows
    Instant lateAt = at.minus(1, ChronoUnit.HOURS);
    Sequence lateSeq = Sequence.of(ChronoUnit.MICROS.between(Instant.EPOCH, lateAt));
    List<ChangeEvent> lateEvents = new ArrayList<>();
    List<String> lateLines = new ArrayList<>();
    int city = attrs.indexOf(attrs.stream().filter(c -> c.name().equals("city")).findFirst().orElseThrow());
    for (long k = 1; k <= 1_000 && lateEvents.size() < 100; k += 3) {
      Version current = open.get(new BusinessKey(List.of(k)));
      if (k % 10 == 0 || current == null) {
        continue;
      }
      List<Object> values = new ArrayList<>(current.attributes());
      values.set(city, "late-" + k);
      lateEvents.add(ChangeEvent.upsert(current.key(), lateSeq, values));
      StringBuilder row = new StringBuilder("{\"customer_id\": " + k + ", \"updated_at\": \"" + lateAt + "\"");
      for (int a = 0; a < attrs.size(); a++) {
        row.append(", \"").append(attrs.get(a).name()).append("\": ")
            .append(ColumnValues.toJson(values.get(a), attrs.get(a).type()));
      }
      lateLines.add(row.append('}').toString());
    }
    int half = part2.jsonLines().size() / 2;
    List<String> firstHalf = new ArrayList<>(part2.jsonLines().subList(0, half));
    firstHalf.addAll(lateLines);
    Path part2a = Files.write(dir.resolve("part2a.jsonl"), firstHalf, StandardCharsets.UTF_8);
    Path part2b = Files.write(dir.resolve("part2b.jsonl"), part2.jsonLines().subList(half, part2.jsonLines().size()),
        StandardCharsets.UTF_8);

    Path log2 = log("snapshot-2");
    try (ServiceProcess service = ServiceProcess.start(log2, "--config", yaml.toString())) {
      awaitStarted(service, spec, log2);
      assertThat(Files.readString(log2)).as("the state is older than the snapshot; see %s", log2)
          .contains("Taking over the table of " + spec.name()).contains("a batch write changed the table");
      ProduceCommand.produce(spec, part2a, KafkaClients.properties(spec, null));
      awaitCaughtUp(service, spec, log2, () -> DeltaTable.open(table()));
      assertThat(service.stop()).isZero();
    }
    Path log3 = log("snapshot-3");
    try (ServiceProcess service = ServiceProcess.start(log3, "--config", yaml.toString())) {
      awaitStarted(service, spec, log3);
      assertThat(Files.readString(log3)).as("no batch write since the takeover; see %s", log3)
          .contains("holds the table's history").doesNotContain("Taking over");
      ProduceCommand.produce(spec, part2b, KafkaClients.properties(spec, null));
      awaitCaughtUp(service, spec, log3, () -> DeltaTable.open(table()));
      assertThat(service.stop()).isZero();
    }

    List<ChangeEvent> after = new ArrayList<>(part2.events().subList(0, half));
    after.addAll(lateEvents);
    after.addAll(part2.events().subList(half, part2.events().size()));
    List<ChangeEvent> all = new ArrayList<>(untilSnapshot);
    all.addAll(after);
    assertThat(HiddenEvents.keysAtRisk(spec, untilSnapshot, after))
        .as("keys whose late event lands before a snapshot row no version shows").isNotEmpty();
    assertTableIsTheFoldOf(spec, all, 0, table(), DeltaTable.open(table()));
  }

  private void assertTableIsTheFoldOf(DimensionSpec spec, ChangeStreams.GeneratedStream stream, int cut) {
    assertTableIsTheFoldOf(spec, stream.events(), cut, table(), DeltaTable.open(table()));
  }

  /**
   * Every row of the table, read with Delta Kernel (from {@code kernelPath}, the table's files on a local disk) and
   * with ours ({@code ours}), is the reference fold of the {@code events}, except for the keys a takeover after the
   * first {@code cut} events cannot make exact (events the table's rows do not show, overtaken by a later one:
   * {@link HiddenEvents}); one open row per key and no overlap, whatever the key.
   */
  static void assertTableIsTheFoldOf(DimensionSpec spec, List<ChangeEvent> events, int cut, Path kernelPath,
      DeltaTable ours) {
    // only keys with events after the cut can be at risk: the events before it of the others are left out (the
    // answer is the same, found in far less time on a large table)
    List<ChangeEvent> after = events.subList(cut, events.size());
    Set<BusinessKey> later = new HashSet<>();
    after.forEach(e -> later.add(e.key()));
    Set<BusinessKey> atRisk = HiddenEvents.keysAtRisk(spec,
        events.subList(0, cut).stream().filter(e -> later.contains(e.key())).toList(), after);
    List<Version> expected = Scd2Fold.fold(spec, events);
    List<Version> kernelRows = EndToEndIT.sorted(KernelReader.latest(kernelPath, spec));
    assertNoOverlaps(kernelRows);
    Set<BusinessKey> differing = new HashSet<>();
    Set<Version> got = new HashSet<>(kernelRows);
    expected.stream().filter(v -> !got.contains(v)).forEach(v -> differing.add(v.key()));
    Set<Version> wanted = new HashSet<>(expected);
    kernelRows.stream().filter(v -> !wanted.contains(v)).forEach(v -> differing.add(v.key()));
    System.out.printf("TakeoverIT: %d versions expected; %d keys differ from the fold, all among the %d keys a"
        + " takeover cannot make exact%n", expected.size(), differing.size(), atRisk.size());
    assertThat(differing).as("keys whose history differs from the fold of the whole stream").isSubsetOf(atRisk);
    List<Version> exact = expected.stream().filter(v -> !atRisk.contains(v.key())).toList();
    assertThat(kernelRows.stream().filter(v -> !atRisk.contains(v.key())).toList()).containsExactlyElementsOf(exact);
    try (Stream<Version> rows = ours.latest().scan()) {
      assertThat(EndToEndIT.sorted(rows.toList())).containsExactlyElementsOf(kernelRows);
    }
  }

  /**
   * The versions topic, read to its end, holds every row of the table as its last record per version: the takeover
   * wrote the backfilled rows to it, so its readers (enrichments, consumers) see the whole history.
   */
  private void assertVersionsTopicHoldsTheTable(DimensionSpec spec) {
    VersionRecordCodec codec = VersionRecordCodec.forSpec(spec);
    Map<VersionId, Version> last = new HashMap<>();
    for (var r : TopicReader.readAll(KafkaClients.properties(spec, null), spec.topics().versions(), true).kept()) {
      if (EventRecordHeaders.isEvent(r.headers())) {
        continue; // the event store's writes, which the compactor keeps beside the table
      }
      VersionChange c = codec.decodeChange(r.key(), r.value());
      if (c instanceof VersionChange.Upsert u) {
        last.put(u.id(), u.version());
      } else {
        last.remove(c.id());
      }
    }
    try (Stream<Version> rows = DeltaTable.open(table()).latest().scan()) {
      assertThat(EndToEndIT.sorted(new ArrayList<>(last.values()))).as("the versions topic's last record per version")
          .containsExactlyElementsOf(EndToEndIT.sorted(rows.toList()));
    }
  }

  /** One open row per key at most, and each key's versions, sorted, closed before the next one opens. */
  static void assertNoOverlaps(List<Version> sortedRows) {
    Map<BusinessKey, List<Version>> byKey = new HashMap<>();
    sortedRows.forEach(v -> byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v));
    byKey.forEach((key, rows) -> {
      assertThat(rows.stream().filter(Version::isCurrent).count()).as("open rows of key %s", key).isLessThanOrEqualTo(1);
      for (int i = 1; i < rows.size(); i++) {
        Version before = rows.get(i - 1);
        Version next = rows.get(i);
        assertThat(before.validTo()).as("key %s: the version before %s is closed", key, next).isNotNull();
        assertThat(before.validTo().isAfter(next.validFrom())).as("key %s: %s overlaps %s", key, before, next)
            .isFalse();
      }
    });
  }

  private Path table() {
    return dir.resolve("table");
  }

  private Path spec(String name, Path dataDir) throws Exception {
    return ExampleSpec.write(dir, name, name + "-" + dataDir.getFileName(), dataDir, "", "");
  }

  /** The stream's JSON lines (with its two bad records) cut in two halves in arrival order, written under {@code dir}. */
  static List<Path> halves(ChangeStreams.GeneratedStream stream, Path dir) throws Exception {
    Path all = EndToEndIT.writeInput(stream, dir.resolve("changes.jsonl"));
    List<String> lines = Files.readAllLines(all, StandardCharsets.UTF_8);
    int half = lines.size() / 2;
    List<Path> out = new ArrayList<>();
    out.add(Files.write(dir.resolve("first.jsonl"), lines.subList(0, half), StandardCharsets.UTF_8));
    out.add(Files.write(dir.resolve("second.jsonl"), lines.subList(half, lines.size()), StandardCharsets.UTF_8));
    return out;
  }

  /** The stream's JSON lines (with its two bad records) cut in three parts in arrival order, written under {@code dir}. */
  static List<Path> thirds(ChangeStreams.GeneratedStream stream, Path dir) throws Exception {
    Path all = EndToEndIT.writeInput(stream, dir.resolve("changes.jsonl"));
    List<String> lines = Files.readAllLines(all, StandardCharsets.UTF_8);
    int third = lines.size() / 3;
    List<Path> out = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      out.add(Files.write(dir.resolve("third-" + i + ".jsonl"),
          lines.subList(i * third, i == 2 ? lines.size() : (i + 1) * third), StandardCharsets.UTF_8));
    }
    return out;
  }

  static Path log(String name) throws Exception {
    Path log = Path.of("target", "TakeoverIT-" + name + ".log");
    Files.deleteIfExists(log);
    return log;
  }

  /** Waits for the service's embedded broker to be up and its topology to run (after any takeover). */
  static void awaitStarted(ServiceProcess service, DimensionSpec spec, Path log) {
    await("the service to start").atMost(PHASE_TIMEOUT).pollInterval(Duration.ofMillis(200))
        .failFast("the service died; see " + log, () -> !service.isAlive())
        .until(() -> Files.readString(log).contains("dimstream " + spec.name() + " running"));
  }

  /** Waits until the topology read every change and the table holds every version it wrote. */
  static void awaitCaughtUp(ServiceProcess service, DimensionSpec spec, Path log, Supplier<DeltaTable> table) {
    Map<String, Object> kafka = KafkaClients.properties(spec, null);
    await("the table to catch up with the stream").atMost(PHASE_TIMEOUT).pollInterval(Duration.ofMillis(500))
        .failFast("the service died; see " + log, () -> !service.isAlive())
        .until(() -> CatchUp.streamsCaughtUp(kafka, spec, "dimstream-" + spec.name())
            && CatchUp.tableCaughtUp(kafka, spec, table.get()));
  }

  static int cli(String... args) {
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(new StringWriter(), true));
    return cl.execute(args);
  }
}
