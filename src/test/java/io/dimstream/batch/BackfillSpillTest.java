package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackfillSpillTest {
  @TempDir
  Path dir;

  @Test
  void shouldGiveTheSameVersionsAndDeadLettersWhenEventsSpillToDisk() throws Exception {
    Path yaml = dir.resolve("customers.yaml");
    Files.writeString(yaml, Files.readString(Path.of("examples/customers.yaml")) + "lateness_horizon: 6h\n");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(DimensionSpecLoader.load(
        Path.of("examples/customers.yaml")), 31L).keys(300).events(20_000).late(0.05).duplicates(0.02)
        .deletes(0.01).noChange(0.05).sameSequence(0.02).generate();
    List<String> lines = new ArrayList<>(stream.jsonLines());
    lines.add(7_000, "{\"customer_id\": 7, \"city\": \"Oslo\"");

    Run inMemory = run(spec, lines, Long.MAX_VALUE, dir.resolve("dlq-memory.jsonl"));
    // 200 kB of the events' 3.4 MB encoded in memory: a few partitions stay, the rest goes to disk, and both
    // are folded partition by partition
    Run spilled = run(spec, lines, 200_000, dir.resolve("dlq-spilled.jsonl"));

    assertThat(spilled.versions).containsExactlyElementsOf(inMemory.versions).isNotEmpty();
    assertThat(spilled.counts).isEqualTo(inMemory.counts);
    assertThat(Files.readAllLines(spilled.dlq)).containsExactlyElementsOf(Files.readAllLines(inMemory.dlq));
    assertThat(Files.readAllLines(spilled.dlq)).hasSizeGreaterThan(1); // the broken line and some too late
    // every shard was written once, from its own partition
    assertThat(spilled.shardsWritten).doesNotHaveDuplicates();
  }

  @Test
  void shouldGiveTheSameVersionsWhenDecodeThreadsEncodeTheSpillAndPartitionsHoldSeveralShards() throws Exception {
    Path yaml = dir.resolve("customers.yaml");
    Files.writeString(yaml, Files.readString(Path.of("examples/customers.yaml")) + "lateness_horizon: 6h\n");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    List<String> lines = ChangeStreams.random(DimensionSpecLoader.load(Path.of("examples/customers.yaml")), 32L)
        .keys(1_000).events(30_000).late(0.05).duplicates(0.02).deletes(0.01).noChange(0.05).sameSequence(0.02)
        .generate().jsonLines();

    Run inMemory = run(spec, lines, Long.MAX_VALUE, dir.resolve("dlq-memory.jsonl"), 200);
    // a budget of 100 bytes: every partition spills at the first chunk, and 200 shards share 64 partition files
    Run spilled = run(spec, lines, 100, dir.resolve("dlq-spilled.jsonl"), 200);

    assertThat(spilled.versions).containsExactlyElementsOf(inMemory.versions).isNotEmpty();
    assertThat(spilled.counts).isEqualTo(inMemory.counts);
    assertThat(Files.readAllLines(spilled.dlq)).containsExactlyElementsOf(Files.readAllLines(inMemory.dlq))
        .isNotEmpty();
    assertThat(spilled.shardsWritten).doesNotHaveDuplicates().hasSize(inMemory.shardsWritten.size());
  }

  private record Run(List<Version> versions, Backfill.Counts counts, Path dlq, List<Integer> shardsWritten) {}

  private static Run run(DimensionSpec spec, List<String> lines, long budget, Path dlq) throws Exception {
    return run(spec, lines, budget, dlq, 64);
  }

  private static Run run(DimensionSpec spec, List<String> lines, long budget, Path dlq, int shardCount)
      throws Exception {
    List<Version> versions = new ArrayList<>();
    List<Integer> shards = new ArrayList<>();
    Backfill.Counts counts = new Backfill(spec).run(BackfillInputs.of(lines), "changes.jsonl", dlq, shardCount,
        key -> Math.floorMod(key.values().get(0).hashCode(), shardCount), (shard, rows) -> {
          synchronized (versions) {
            versions.addAll(rows);
            shards.add(shard);
          }
        }, budget);
    versions.sort(BusinessKeys.VERSION_ORDER);
    return new Run(versions, counts, dlq, shards);
  }
}
