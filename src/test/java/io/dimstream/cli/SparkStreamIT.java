package io.dimstream.cli;

import static io.dimstream.interop.SparkChecks.assertReads;
import static io.dimstream.interop.SparkChecks.delta;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionJson;
import io.dimstream.compactor.Compactor;
import io.dimstream.history.Scd2Fold;
import io.dimstream.interop.SparkChecks;
import io.dimstream.interop.SparkProcess;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import io.dimstream.model.VersionId;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table {@code run} writes, read by Spark 4.0 + Delta 4.0: two compactors committing many times with deletion
 * vectors, background compaction and checkpoints, equal to the reference fold; then Spark writes the table (OPTIMIZE,
 * UPDATE and DELETE of current rows, VACUUM, its own checkpoint) and dimstream goes on committing the second half of
 * the events on Spark's files: Spark reads the reference fold for every key it did not write, and for the two it did,
 * its writes overwritten exactly where dimstream's later commits wrote those versions.
 */
class SparkStreamIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldBeReadBySparkWhileCompactorsCommitAndOpenTheTableAfterSparkWrites() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_spark_run", "  partitions: 2\n",
        "output: {table_properties: {delta.checkpointInterval: \"4\"}}\n");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 77L).keys(200).events(2_400).sameSequence(0)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    List<ChangeEvent> events = stream.events();
    List<String> lines = stream.jsonLines();
    int half = 1_200;
    Path table = spec.service().tablePath().localPath();

    runService(spec, lines.subList(0, half), true);

    List<Version> firstHalf = Scd2Fold.fold(spec, events.subList(0, half));
    DeltaTable ours = DeltaTable.open(table);
    List<CommitSummary> history = ours.history();
    assertThat(history.stream().filter(c -> c.operation().equals("MERGE")).count()).as("many commits")
        .isGreaterThanOrEqualTo(6);
    assertThat(history).as("background compaction of files with deletion vectors")
        .anyMatch(c -> c.operation().equals("OPTIMIZE"));
    try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
      assertThat(log.map(p -> p.getFileName().toString())).as("a checkpoint")
          .anyMatch(n -> n.endsWith(".checkpoint.parquet"));
    }
    try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
      assertThat(log.filter(p -> p.toString().endsWith(".json"))).as("commits that mark rows with deletion vectors")
          .anyMatch(p -> read(p).contains("\"deletionVector\":{\"storageType\""));
    }
    long beforeSpark = ours.latest().version();
    assertReads(table, spec, firstHalf, beforeSpark / 2);

    // Spark writes: a current row updated, a key deleted, files compacted and vacuumed, a checkpoint of its own.
    // the updated key has later events (dimstream closes the version Spark updated), the deleted one closed versions
    Set<BusinessKey> later = new HashSet<>();
    events.subList(half, events.size()).forEach(e -> later.add(e.key()));
    Version updated = firstHalf.stream().filter(v -> v.isCurrent() && later.contains(v.key())).findFirst()
        .orElseThrow();
    BusinessKey deleted = firstHalf.stream().filter(v -> !v.isCurrent()).map(Version::key)
        .filter(k -> !k.equals(updated.key())).findFirst().orElseThrow();
    SparkProcess spark = SparkProcess.shared();
    String name = delta(table);
    spark.sql("UPDATE " + name + " SET email = 'spark@example.com' WHERE customer_id = "
        + updated.key().values().get(0) + " AND is_current");
    spark.sql("DELETE FROM " + name + " WHERE customer_id = " + deleted.values().get(0));
    spark.sql("OPTIMIZE " + name);
    spark.sql("VACUUM " + name + " RETAIN 0 HOURS");
    try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
      assertThat(log.map(p -> p.getFileName().toString())).as("Spark's checkpoint")
          .anyMatch(n -> n.endsWith(".checkpoint.parquet")
              && Long.parseLong(n.substring(0, 20)) > beforeSpark);
    }

    // dimstream opens the table Spark wrote, from Spark's checkpoint, and goes on committing the second half
    long afterSpark = DeltaTable.open(table).latest().version();
    assertThat(afterSpark).isGreaterThan(beforeSpark);
    runService(spec, lines.subList(half, lines.size()), false);
    assertThat(DeltaTable.open(table).latest().version()).as("dimstream committed after Spark")
        .isGreaterThan(afterSpark);

    int email = spec.attributeColumns().stream().map(c -> c.name()).toList().indexOf("email");
    List<Version> sparkLeft = new ArrayList<>();
    for (Version v : firstHalf) {
      if (v.equals(updated)) {
        List<Object> attributes = new ArrayList<>(v.attributes());
        attributes.set(email, "spark@example.com");
        sparkLeft.add(v.withAttributes(attributes));
      } else if (!v.key().equals(deleted)) {
        sparkLeft.add(v);
      }
    }
    List<Version> all = Scd2Fold.fold(spec, events);
    List<Version> expected = afterLaterCommits(sparkLeft, firstHalf, all);
    // the keys Spark did not touch are exactly the reference; the two it touched are checked as such too
    assertThat(expected.stream().filter(v -> !v.key().equals(updated.key()) && !v.key().equals(deleted)).toList())
        .isEqualTo(all.stream().filter(v -> !v.key().equals(updated.key()) && !v.key().equals(deleted)).toList());
    assertThat(expected).as("the later events changed both keys Spark wrote").isNotEqualTo(all);
    assertReads(table, spec, expected, afterSpark);
  }

  /**
   * The table after other writers left {@code written} and dimstream committed the versions its later events
   * changed: each version whose content differs between the reference fold {@code before} and {@code after} those
   * events (new, changed, or gone) is written by its identity (key and valid_from), over whatever the other writer
   * left there; the versions the later events did not change stay as the other writer left them (or missing).
   */
  static List<Version> afterLaterCommits(List<Version> written, List<Version> before, List<Version> after) {
    Map<VersionId, Version> table = byId(written);
    Map<VersionId, Version> was = byId(before);
    Map<VersionId, Version> now = byId(after);
    Set<VersionId> ids = new HashSet<>(was.keySet());
    ids.addAll(now.keySet());
    for (VersionId id : ids) {
      if (!Objects.equals(was.get(id), now.get(id))) {
        if (now.get(id) == null) {
          table.remove(id);
        } else {
          table.put(id, now.get(id));
        }
      }
    }
    return SparkChecks.sorted(new ArrayList<>(table.values()));
  }

  private static Map<VersionId, Version> byId(List<Version> versions) {
    Map<VersionId, Version> out = new HashMap<>();
    versions.forEach(v -> out.put(v.id(), v));
    return out;
  }

  /** Runs the service (and, with {@code extraCompactor}, a second compactor) until {@code lines} reach the table. */
  private void runService(DimensionSpec spec, List<String> lines, boolean extraCompactor) throws Exception {
    Compactor second = null;
    Thread thread = null;
    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      if (extraCompactor) {
        second = new Compactor(spec, Compactor.openTable(spec), new VersionJson(spec)::decodeChange, service.kafka(), "second:/b", Clock.systemUTC());
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

  /** Commits of the service's compactor (none before its first attempt started) and of {@code second}. */
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
