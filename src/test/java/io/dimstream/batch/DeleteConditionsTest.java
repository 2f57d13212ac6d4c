package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.testkit.DimensionTestDriver;
import io.dimstream.topology.TopologyRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A delete record is judged by {@code skip_when} on the columns it carries, as a user reads them in the record: the
 * customers example with the condition {@code event.city == 'Lagos' && event.tier == 'bronze'} drops a delete that
 * says Lagos/bronze, in the topology (run, replay, the test kit) and in backfill alike.
 */
class DeleteConditionsTest {
  static final String CONDITIONS = """
      derive:
        tier_rank: "event.tier == 'platinum' ? 4 : (event.tier == 'gold' ? 3 : (event.tier == 'silver' ? 2 : 1))"
      skip_when: "event.city == 'Lagos' && event.tier == 'bronze'"
      """;

  static final String OPEN = row("2026-01-01T00:00:00Z", "Oslo", "gold", "u");
  /** Lagos/bronze: the condition holds, so the delete is dropped and the key stays open. */
  static final String SKIPPED_DELETE = row("2026-01-02T00:00:00Z", "Lagos", "bronze", "d");
  static final String LATER = row("2026-01-03T00:00:00Z", "Oslo", "silver", "u");

  @TempDir
  Path dir;

  @Test
  void shouldDropADeleteRecordForWhichSkipWhenHoldsInTheTestKit() throws IOException {
    try (DimensionTestDriver dim = DimensionTestDriver.of(spec(dir))) {
      dim.send(OPEN, SKIPPED_DELETE);

      assertThat(dim.current(1507)).hasValueSatisfying(v -> assertThat(v.attributes()).contains("Oslo", "gold", 3L));
      assertThat(dim.versions(1507)).hasSize(1);
      assertThat(dim.dlq()).isEmpty();
    }
  }

  @Test
  void shouldGiveTheHistoryOfTheFileWithoutTheSkippedDeleteInReplayAndBackfill() throws IOException {
    DimensionSpec spec = spec(dir);
    List<String> sent = List.of(OPEN, LATER, SKIPPED_DELETE); // the delete arrives late
    List<String> filtered = List.of(OPEN, LATER);

    List<Version> expected = TopologyRunner.replay(spec, bytes(filtered), r -> {}).history();
    List<Version> replayed = TopologyRunner.replay(spec, bytes(sent), r -> {}).history();
    Backfill.Result backfilled = new Backfill(spec).build(inputs(sent), "customers.jsonl", dir.resolve("dlq.jsonl"));

    assertThat(expected).hasSize(2);
    assertThat(expected.get(1).isCurrent()).isTrue();
    assertThat(replayed).isEqualTo(expected);
    assertThat(backfilled.versions()).isEqualTo(expected);
  }

  /** The customers example plus a {@code tier_rank} column and the two expressions. */
  static DimensionSpec spec(Path dir) throws IOException {
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        .replace("  op: string\n", "  op: string\n  tier_rank: long\n") + CONDITIONS;
    Path file = dir.resolve("customers.yaml");
    Files.writeString(file, yaml);
    return DimensionSpecLoader.load(file);
  }

  static String row(String at, String city, String tier, String op) {
    return "{\"customer_id\":1507,\"name\":\"Ada\",\"email\":\"ada@example.com\",\"city\":\"" + city + "\",\"tier\":\""
        + tier + "\",\"updated_at\":\"" + at + "\",\"op\":\"" + op + "\"}";
  }

  static java.util.Iterator<byte[]> bytes(List<String> lines) {
    return lines.stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).iterator();
  }

  static java.util.Iterator<Backfill.Input> inputs(List<String> lines) {
    List<Backfill.Input> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      out.add(new Backfill.Input(i + 1, lines.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    return out.iterator();
  }
}
